package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/queue"
)

var queueCommand = &command{
	name:     "queue",
	synopsis: "[flags] put|take PATH [DATA|-]",
	summary:  "put an item on, or take items from, a Curator distributed queue",
	help: `'queue put PATH DATA' puts DATA (or, with -, all of stdin) on the queue at
PATH as one item, in Curator's DistributedQueue format: with --id as a
DistributedIdQueue item, with --priority as a DistributedPriorityQueue item,
with --delay as a DistributedDelayQueue item due after that long. Curator
consumers (Java) and 'queue take' get it.

'queue take PATH' takes --count items (default 1) in the queue's order, as a
consumer of the --type of queue its producers use, and prints each item's
bytes followed by a newline (--raw: nothing in between). It waits for items
as long as it takes, or at most --wait, connecting included: when --wait
elapses before --count items were taken it prints those it took and exits
with status 75. Without --lock-path an item is deleted before it is printed
(lost if zkcurator dies in between). With --lock-path, as Curator's lock
safety, take creates the item's lock node under LP, reads the item, prints
it, deletes the item, then deletes the lock node; an item whose taker died
stays for the next consumer. Every consumer of one queue must use the same
lock path (or none): a consumer with another sees no lock and can take an
item being taken.`,
	positional: 3,
	optional:   1,
	setup: func(fs *flag.FlagSet, conn *connFlags) func(context.Context, io.Writer, []string) error {
		var pf putFlags
		pf.add(fs)
		var tf takeFlags
		tf.add(fs)
		return func(ctx context.Context, out io.Writer, args []string) error {
			action, path := args[0], args[1]
			if action != "put" && action != "take" {
				return fail(exitUsage, "queue: unknown action %q: want put or take (run 'zkcurator queue -h')", action)
			}
			if err := checkPath("PATH", path); err != nil {
				return fail(exitUsage, "queue: %v", err)
			}
			for _, name := range map[string][]string{"put": tf.names(), "take": pf.names()}[action] {
				if flagSet(fs, name) {
					return fail(exitUsage, "queue %s: --%s is a flag of 'queue %s' (run 'zkcurator queue -h')", action, name, other(action))
				}
			}
			if action == "put" {
				if len(args) < 3 {
					return fail(exitUsage, "queue put: missing DATA, or - to read it from stdin (run 'zkcurator queue -h')")
				}
				return queuePut(ctx, conn, fs, &pf, path, args[2])
			}
			if len(args) > 2 {
				return fail(exitUsage, "queue take: unexpected argument %q (run 'zkcurator queue -h')", args[2])
			}
			return queueTake(ctx, conn, &tf, path, out)
		}
	},
}

func other(action string) string {
	if action == "put" {
		return "take"
	}
	return "put"
}

// putFlags are the flags of 'queue put'; at most one of them is given.
type putFlags struct {
	id       string
	priority priorityFlag
	delay    optionalDuration
}

func (f *putFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&f.id, "id", "", "put: put the item with this `ID`, as Curator's DistributedIdQueue")
	fs.Var(&f.priority, "priority", "put: put the item with this priority `N` (a 32-bit integer; lower is taken first), as Curator's DistributedPriorityQueue")
	fs.Var(&f.delay, "delay", "put: put the item due after this `duration`, as Curator's DistributedDelayQueue")
}

func (f *putFlags) names() []string { return []string{"id", "priority", "delay"} }

// priorityFlag is --priority: a signed 32-bit integer, remembered as given.
type priorityFlag struct {
	n   int32
	set bool
}

func (f *priorityFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return strconv.Itoa(int(f.n))
}

func (f *priorityFlag) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return errors.New("want a whole number from -2147483648 to 2147483647")
	}
	f.n, f.set = int32(n), true
	return nil
}

// queuePut checks the put flags and DATA, then puts one item.
func queuePut(ctx context.Context, conn *connFlags, fs *flag.FlagSet, f *putFlags, path, data string) error {
	var given []string
	for _, name := range f.names() {
		if flagSet(fs, name) {
			given = append(given, "--"+name)
		}
	}
	if len(given) > 1 {
		return fail(exitUsage, "queue put: %s and %s cannot be used together: an item goes on one kind of queue", given[0], given[1])
	}
	if flagSet(fs, "id") && f.id == "" {
		return fail(exitUsage, "queue put: bad --id \"\": want a non-empty id")
	}
	item := []byte(data)
	if data == "-" {
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			return fail(exitInternal, "queue put: read stdin: %v", err)
		}
		item = b
	}
	log := newLogger(conn.verbose)
	defer func() { _ = log.Sync() }()
	c, err := conn.dial(ctx, log)
	if err != nil {
		return err
	}
	defer closeClient(c, 6*time.Second, log)
	node, err := putItem(ctx, c, f, path, item)
	switch {
	case err == nil:
		log.Info("put an item", zap.String("node", node))
		return nil
	case errors.Is(err, queue.ErrInvalidArgument):
		return fail(exitUsage, "queue put: %v", err)
	case refused(err):
		return noPermission("queue put on "+path, err)
	case errors.Is(err, queue.ErrOutcomeUnknown):
		return fail(exitUnavailable, "queue put on %s: the reply was lost: the item may or may not be on the queue (%v)", path, err)
	}
	return fail(exitUnavailable, "queue put on %s: %v", path, err)
}

// putItem puts item on the queue at path, as the kind of queue f names.
func putItem(ctx context.Context, c *framework.Client, f *putFlags, path string, item []byte) (string, error) {
	type putter interface {
		Start(context.Context) error
		Close() error
	}
	var (
		q   putter
		put func() (string, error)
		err error
	)
	switch {
	case f.id != "":
		var iq *queue.DistributedIDQueue[[]byte]
		iq, err = queue.NewDistributedIDQueue(c, path, queue.Bytes())
		q, put = iq, func() (string, error) { return iq.Put(ctx, item, f.id) }
	case f.priority.set:
		var pq *queue.DistributedPriorityQueue[[]byte]
		pq, err = queue.NewDistributedPriorityQueue(c, path, queue.Bytes())
		q, put = pq, func() (string, error) { return pq.Put(ctx, item, f.priority.n) }
	case f.delay.set:
		var dq *queue.DistributedDelayQueue[[]byte]
		dq, err = queue.NewDistributedDelayQueue(c, path, queue.Bytes())
		q, put = dq, func() (string, error) { return dq.Put(ctx, item, time.Now().Add(f.delay.d)) }
	default:
		var fq *queue.DistributedQueue[[]byte]
		fq, err = queue.NewDistributedQueue(c, path, queue.Bytes())
		q, put = fq, func() (string, error) { return fq.Put(ctx, item) }
	}
	if err != nil {
		return "", err
	}
	defer q.Close()
	if err := q.Start(ctx); err != nil {
		return "", err
	}
	return put()
}
