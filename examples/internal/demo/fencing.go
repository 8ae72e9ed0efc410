package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// FencingConfig sets up the fencing demo.
type FencingConfig struct {
	// SessionTimeout is the session timeout the stalling holder asks for;
	// 400ms to 10s, 1s when zero. The ensemble may negotiate it upward
	// (ZooKeeper allows 2 to 20 ticks), and the stall lasts longer than the
	// negotiated timeout.
	SessionTimeout time.Duration
}

func (c FencingConfig) withDefaults() (FencingConfig, error) {
	if c.SessionTimeout == 0 {
		c.SessionTimeout = time.Second
	}
	if c.SessionTimeout < 400*time.Millisecond || c.SessionTimeout > 10*time.Second {
		return c, fmt.Errorf("demo: SessionTimeout %v is outside 400ms..10s", c.SessionTimeout)
	}
	return c, nil
}

// Fencing shows why a lock alone cannot protect a write, and what Lost and
// FencingToken are for. Holder A stalls (a proxy holds its traffic, as a long
// garbage-collection pause or a frozen VM would) past its session timeout:
// A's client closes Lost, ZooKeeper expires A's session and deletes its node,
// and B takes the lock. When A wakes it does what it was about to do, write,
// and the storage refuses the write because A's fencing token is older than
// B's. It fails with ErrInvariant if Lost does not fire, B's token is not
// newer than A's, or the storage accepts A's stale write.
//
// A reaches ZooKeeper through a zktest.Proxy in front of the first address in
// connect, so this demo needs that address to be reachable from here.
func Fencing(ctx context.Context, connect string, out io.Writer, cfg FencingConfig) error {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	first, _, _ := strings.Cut(connect, ",")
	proxy, err := zktest.NewProxy(strings.TrimSpace(first))
	if err != nil {
		return err
	}
	defer proxy.Close() // after the clients are closed: deferred first, runs last
	st := newStage(connect, out, "fencing")
	defer st.close()
	p := st.p
	p.title("fencing: a holder that stalls past its session loses the lock; its late write is refused")
	a, err := st.clientAt(ctx, proxy.Addr(), framework.WithSessionTimeout(cfg.SessionTimeout))
	if err != nil {
		return err
	}
	stopListening := a.Listen(func(s framework.ConnectionState) { p.say("A's client reports %s", s) })
	defer stopListening()
	b, err := st.client(ctx)
	if err != nil {
		return err
	}
	p.say("A connects through a proxy (session timeout %v), B connects directly", a.SessionTimeout())

	const lockPath = "/locks/report"
	mA := locks.NewInterProcessMutex(a, lockPath)
	mB := locks.NewInterProcessMutex(b, lockPath)
	store := &fencedStore{}
	v := &verdict{}

	if err := mA.Acquire(ctx); err != nil {
		return fmt.Errorf("A: acquire: %w", err)
	}
	tokenA := mA.FencingToken()
	p.say("A holds the lock; its fencing token (the lock node's czxid) is %d", tokenA)
	err = store.write(tokenA, "report v1 by A")
	p.say("A writes with token %d: %s", tokenA, outcome(err))
	v.expect(err == nil, "A's first write was refused: %v", err)

	bDone := make(chan error, 1)
	go func() { bDone <- mB.Acquire(ctx) }()
	err = waitUntil(ctx, arrivalTimeout, "B's node is in line", func(ctx context.Context) (bool, error) {
		nodes, err := mB.ParticipantNodes(ctx)
		return len(nodes) == 2, err
	})
	if err != nil {
		return errors.Join(err, releaseAll(mA, 1), awaitAndRelease(mB, bDone))
	}
	p.say("B asks for the lock and waits")

	select {
	case <-mA.Lost():
		return errors.Join(errors.New("A's Lost() fired before A stalled"), releaseAll(mA, 1), awaitAndRelease(mB, bDone))
	default:
	}
	p.say("A checks Lost(): not closed, so A goes on to prepare its next write ...")
	p.say("... and stalls (a long GC pause; here the proxy holds A's traffic) for longer than its session")
	proxy.Pause()
	stall := 2*a.SessionTimeout() + 10*time.Second

	select {
	case <-mA.Lost():
		p.say("A's Lost() fired: A's client can no longer vouch for the lock; a holder must stop here")
	case <-time.After(stall):
		v.expect(false, "A's Lost() did not fire within %v of the stall", stall)
	case <-ctx.Done():
		proxy.Resume()
		return errors.Join(ctx.Err(), releaseAll(mA, 1), awaitAndRelease(mB, bDone))
	}

	var tokenB int64
	select {
	case err := <-bDone:
		if err != nil {
			proxy.Resume()
			return errors.Join(fmt.Errorf("B: acquire: %w", err), releaseAll(mA, 1))
		}
		tokenB = mB.FencingToken()
		p.say("ZooKeeper expired A's session and deleted A's node: B holds the lock, fencing token %d", tokenB)
	case <-time.After(stall):
		proxy.Resume()
		return errors.Join(fmt.Errorf("B did not get the lock within %v of A's stall", stall), releaseAll(mA, 1), awaitAndRelease(mB, bDone))
	}
	err = store.write(tokenB, "report v2 by B")
	p.say("B writes with token %d: %s", tokenB, outcome(err))
	v.expect(err == nil, "B's write was refused: %v", err)

	proxy.Resume()
	p.say("A wakes up and finishes what it was doing: it writes with token %d", tokenA)
	staleErr := store.write(tokenA, "report v1.1 by A (stale)")
	p.say("the storage answers A: %s", outcome(staleErr))
	p.say("the storage holds %q", store.read())

	v.expect(tokenA > 0 && tokenB > tokenA, "B's token %d is not newer than A's %d", tokenB, tokenA)
	v.expect(errors.Is(staleErr, errStaleToken), "A's stale write was not refused (got %v)", staleErr)
	v.expect(store.read() == "report v2 by B", "the storage holds %q, want B's write", store.read())

	if err := mB.Release(ctx); err != nil {
		return fmt.Errorf("B: release: %w", err)
	}
	relCtx, cancel := context.WithTimeout(ctx, handoffTimeout)
	defer cancel()
	err = mA.Release(relCtx)
	if err != nil {
		p.say("A releases: %v", err)
	} else {
		p.say("A releases: nothing left to delete, its node went with its session")
	}
	p.say("why both: Lost() tells a holder to stop, but a stall can fall between its check and its write;")
	p.say("the fencing token lets the storage refuse what arrives too late. Send FencingToken() with every write.")
	return v.conclude(p, "A's Lost() fired, B's token was newer, and the storage refused A's stale write")
}

// outcome describes the result of an operation in a few words.
func outcome(err error) string {
	if err == nil {
		return "accepted"
	}
	return "refused: " + err.Error()
}
