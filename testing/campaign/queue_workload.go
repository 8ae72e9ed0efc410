package campaign

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/queue"
)

// Queue operations: what a Queued hold did.
const (
	opPut  = "put"
	opTake = "take"
)

// queueBound is the producers' WithMaxItems: it keeps the queue short
// whatever the consumers' pace (every consumer lists all the items on every
// change), and runs the bounded put's guard under the faults too.
const queueBound = 32

// queuer is a queue campaign worker's DistributedQueue: even clients
// produce into a bounded queue, odd ones consume in lock path mode.
type queuer struct {
	q        *queue.DistributedQueue[[]byte]
	consumer bool
	takes    int // the consumer's calls so far: a take's Seq (used by the consumer loop only)
}

func newQueuer(w *worker) *queuer {
	qr := &queuer{consumer: w.id%2 == 1}
	opts := []queue.Option{queue.WithMaxItems(queueBound)}
	if qr.consumer {
		opts = []queue.Option{queue.WithLockPath(w.paths.lock), queue.WithConsumer[[]byte](w.take)}
	}
	qr.q = built(queue.NewDistributedQueue(w.client, w.paths.queue, queue.Bytes(), opts...))
	return qr
}

// queueItem names the item a producer puts in its seq-th iteration: unique
// in the campaign, so that every take and every item left in the queue
// names the put it came from.
func queueItem(client, seq int) string { return fmt.Sprintf("c%d-%07d", client, seq) }

// runQueue starts the worker's queue, then puts items (a producer) or lets
// the queue's consumer loop take them (a consumer) until ctx ends. A
// consumer then drains the queue, within a bound, before it closes, so that
// the items left at the end are few.
func (w *worker) runQueue(ctx context.Context) {
	qr := w.queuer
	defer qr.q.Close()
	for started := false; !started && ctx.Err() == nil; {
		sctx, cancel := context.WithTimeout(ctx, w.opTimeout)
		started = qr.q.Start(sctx) == nil
		cancel()
		if !started {
			sleepCtx(ctx, 20*time.Millisecond)
		}
	}
	if qr.consumer {
		<-ctx.Done()
		w.drain(context.WithoutCancel(ctx), 2*w.opTimeout)
		return
	}
	for seq := 0; seq < maxIterations && ctx.Err() == nil; seq++ {
		w.put(ctx, seq)
		w.dwell(ctx) // the producers' pace: keeps the queue short
	}
}

// put puts one item, waiting for room within the worker's op timeout, and
// records its outcome: Accepted (the put returned its node), Unknown
// (ErrOutcomeUnknown: it may have applied) or NoWrite (it failed, or found
// no room, and did not apply).
func (w *worker) put(ctx context.Context, seq int) {
	item := queueItem(w.id, seq)
	rec := Hold{Client: w.id, Seq: seq, Mode: Queued, Target: opPut, Item: item, Write: never, LostAt: never}
	w.holding.Store(true)
	rec.Enter = w.clock.now()
	opCtx, cancel := context.WithTimeout(ctx, w.opTimeout)
	_, err := w.queuer.q.Put(opCtx, []byte(item))
	cancel()
	rec.Exit = w.clock.now()
	w.holding.Store(false)
	switch {
	case err == nil:
		rec.Outcome = Accepted
	case errors.Is(err, queue.ErrOutcomeUnknown):
		rec.Outcome, rec.Err = Unknown, err.Error()
	default:
		rec.Outcome, rec.Err = NoWrite, err.Error()
	}
	w.history.add(rec)
	if rec.Outcome != Accepted {
		sleepCtx(ctx, 5*time.Millisecond)
	}
}

// take is the consumer: it dwells (the work), then completes the item
// (Accepted) only if its ctx is still alive, as docs/queues.md asks of
// every lock path consumer; otherwise it returns ctx's cause and the item
// stays for the next consumer (NoWrite).
func (w *worker) take(ctx context.Context, item []byte) error {
	qr := w.queuer
	rec := Hold{Client: w.id, Seq: qr.takes, Mode: Queued, Target: opTake, Item: string(item), Write: never, LostAt: never}
	qr.takes++
	w.holding.Store(true)
	defer w.holding.Store(false)
	rec.Enter = w.clock.now()
	w.dwell(ctx)
	err := ctx.Err()
	rec.Exit = w.clock.now()
	if err != nil {
		err = context.Cause(ctx)
		rec.Outcome, rec.Err, rec.LostAt, rec.LostAtExit = NoWrite, err.Error(), rec.Exit, true
	} else {
		rec.Outcome = Accepted
	}
	w.history.add(rec)
	return err
}

// drain waits, at most bound, until the queue has no item left.
func (w *worker) drain(ctx context.Context, bound time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	for {
		items, _, err := w.client.Children(ctx, w.paths.queue)
		if (err == nil && len(items) == 0) || !sleepCtx(ctx, 50*time.Millisecond) {
			return
		}
	}
}

// queuedItems returns the items left in the queue at path, each as often as
// a node holds it; a missing queue node holds none.
func queuedItems(ctx context.Context, c *framework.Client, path string) ([]string, error) {
	names, _, err := c.Children(ctx, path)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("campaign: list %s: %w", path, err)
	}
	var items []string
	for _, name := range names {
		data, _, err := c.GetData(ctx, path+"/"+name)
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("campaign: read %s/%s: %w", path, name, err)
		}
		in, err := envelopeItems(data)
		if err != nil {
			return nil, fmt.Errorf("campaign: item node %s/%s: %w", path, name, err)
		}
		items = append(items, in...)
	}
	return items, nil
}

// envelopeItems reads Curator's ItemSerializer envelope (docs/queues.md): a
// 4-byte version, then per item 0x01, a 4-byte length and the bytes, then
// 0x02.
func envelopeItems(data []byte) ([]string, error) {
	if len(data) < 4 {
		return nil, fmt.Errorf("envelope of %d bytes", len(data))
	}
	var items []string
	for rest := data[4:]; ; {
		switch {
		case len(rest) > 0 && rest[0] == 2:
			return items, nil
		case len(rest) < 5 || rest[0] != 1:
			return nil, fmt.Errorf("envelope %q is malformed after %d item(s)", strings.ToValidUTF8(string(data), "?"), len(items))
		}
		n := binary.BigEndian.Uint32(rest[1:5])
		if uint64(n) > uint64(len(rest)-5) {
			return nil, fmt.Errorf("envelope item %d claims %d bytes, %d remain", len(items), n, len(rest)-5)
		}
		items = append(items, string(rest[5:5+n]))
		rest = rest[5+n:]
	}
}
