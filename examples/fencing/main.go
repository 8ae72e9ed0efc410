// Command fencing shows what Lost and FencingToken are for: a lock holder
// stalls past its session, loses the lock to another client, wakes up and
// writes anyway, and the storage refuses the write because its fencing token
// is older than the new holder's. It exits with status 1 if Lost does not
// fire or the stale write is accepted.
//
//	go run ./examples/fencing [-session 1s]
//
// It uses the ensemble in ZK_CONNECT, or an embedded ZooKeeper when that is
// unset. The stalling client reaches ZooKeeper through a local proxy in front
// of the first address in ZK_CONNECT. Read run from the top: two clients, a
// mutex each, Acquire, FencingToken sent with every write, a select on Lost
// before the work, and Release.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

func main() {
	session := flag.Duration("session", time.Second, "session timeout of the stalling holder (400ms..10s)")
	flag.Parse()
	cfg := config{SessionTimeout: *session}
	// runProgram (setup.go) finds ZooKeeper, bounds the time and exits with
	// status 1 when run fails or its promise did not hold.
	runProgram(func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out, cfg)
	})
}

// lockPath is the lock both holders take.
const lockPath = "/locks/report"

// run shows why a lock alone cannot protect a write, and what Lost and
// FencingToken are for. Holder A stalls (a proxy holds its traffic, as a
// long garbage-collection pause or a frozen VM would) past its session
// timeout: A's client closes Lost, ZooKeeper expires A's session and deletes
// its node, and B takes the lock. When A wakes it does what it was about to
// do, write, and the storage refuses the write because A's fencing token is
// older than B's. It fails with errInvariant if Lost does not fire, B's
// token is not newer than A's, or the storage accepts A's stale write.
//
// A reaches ZooKeeper through a zktest.Proxy in front of the first address
// in connect, so this demo needs that address to be reachable from here.
func run(ctx context.Context, connect string, out io.Writer, cfg config) error {
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
	defer st.Close()
	p := st.Printer
	p.Title("fencing: a holder that stalls past its session loses the lock; its late write is refused")
	a, err := newClient(ctx, proxy.Addr(), st.Namespace(), cfg.SessionTimeout)
	if err != nil {
		return err
	}
	defer a.Close()
	stopListening := a.Listen(func(s framework.ConnectionState) { p.Say("A's client reports %s", s) })
	defer stopListening()
	b, err := newClient(ctx, connect, st.Namespace(), 4*time.Second)
	if err != nil {
		return err
	}
	defer b.Close()
	p.Say("A connects through a proxy (session timeout %v), B connects directly", a.SessionTimeout())

	mA, err := locks.NewInterProcessMutex(a, lockPath)
	if err != nil {
		return err
	}
	mB, err := locks.NewInterProcessMutex(b, lockPath)
	if err != nil {
		return err
	}
	store := &fencedStore{}
	v := &verdict{}

	if err := mA.Acquire(ctx); err != nil {
		return fmt.Errorf("A: acquire: %w", err)
	}
	tokenA := mA.FencingToken()
	p.Say("A holds the lock; its fencing token (the lock node's czxid) is %d", tokenA)
	err = store.Write(tokenA, "report v1 by A")
	p.Say("A writes with token %d: %s", tokenA, outcome(err))
	v.Expect(err == nil, "A's first write was refused: %v", err)

	bDone := make(chan error, 1)
	go func() { bDone <- mB.Acquire(ctx) }()
	err = waitUntil(ctx, arrivalTimeout, "B's node is in line", func(ctx context.Context) (bool, error) {
		nodes, err := mB.ParticipantNodes(ctx)
		return len(nodes) == 2, err
	})
	if err != nil {
		return errors.Join(err, releaseAll(mA, 1), awaitAndRelease(mB, bDone))
	}
	p.Say("B asks for the lock and waits")

	select {
	case <-mA.Lost():
		return errors.Join(errors.New("A's Lost() fired before A stalled"), releaseAll(mA, 1), awaitAndRelease(mB, bDone))
	default:
	}
	p.Say("A checks Lost(): not closed, so A goes on to prepare its next write ...")
	p.Say("... and stalls (a long GC pause; here the proxy holds A's traffic) for longer than its session")
	proxy.Pause()
	stall := 2*a.SessionTimeout() + 10*time.Second

	select {
	case <-mA.Lost():
		p.Say("A's Lost() fired: A's client can no longer vouch for the lock; a holder must stop here")
	case <-time.After(stall):
		v.Expect(false, "A's Lost() did not fire within %v of the stall", stall)
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
		p.Say("ZooKeeper expired A's session and deleted A's node: B holds the lock, fencing token %d", tokenB)
	case <-time.After(stall):
		proxy.Resume()
		return errors.Join(fmt.Errorf("B did not get the lock within %v of A's stall", stall), releaseAll(mA, 1), awaitAndRelease(mB, bDone))
	}
	err = store.Write(tokenB, "report v2 by B")
	p.Say("B writes with token %d: %s", tokenB, outcome(err))
	v.Expect(err == nil, "B's write was refused: %v", err)

	proxy.Resume()
	p.Say("A wakes up and finishes what it was doing: it writes with token %d", tokenA)
	staleErr := store.Write(tokenA, "report v1.1 by A (stale)")
	p.Say("the storage answers A: %s", outcome(staleErr))
	p.Say("the storage holds %q", store.Read())

	v.Expect(tokenA > 0 && tokenB > tokenA, "B's token %d is not newer than A's %d", tokenB, tokenA)
	v.Expect(errors.Is(staleErr, errStaleToken), "A's stale write was not refused (got %v)", staleErr)
	v.Expect(store.Read() == "report v2 by B", "the storage holds %q, want B's write", store.Read())

	if err := mB.Release(ctx); err != nil {
		return fmt.Errorf("B: release: %w", err)
	}
	relCtx, cancel := context.WithTimeout(ctx, handoffTimeout)
	defer cancel()
	err = mA.Release(relCtx)
	if err != nil {
		p.Say("A releases: %v", err)
	} else {
		p.Say("A releases: nothing left to delete, its node went with its session")
	}
	p.Say("why both: Lost() tells a holder to stop, but a stall can fall between its check and its write;")
	p.Say("the fencing token lets the storage refuse what arrives too late. Send FencingToken() with every write.")
	return v.Conclude(p, "A's Lost() fired, B's token was newer, and the storage refused A's stale write")
}

// outcome describes the result of an operation in a few words.
func outcome(err error) string {
	if err == nil {
		return "accepted"
	}
	return "refused: " + err.Error()
}

// newClient connects one client, as one process would: Curator's exponential
// backoff for retries, the given session timeout, and the demo's namespace under
// which every path is resolved. Start returns at once; BlockUntilConnected
// waits (here at most 15s) for the first connection.
func newClient(ctx context.Context, connect, namespace string, sessionTimeout time.Duration) (*framework.Client, error) {
	client, err := framework.NewClient(connect,
		retry.ExponentialBackoff{BaseSleep: 50 * time.Millisecond, MaxSleep: time.Second, MaxRetries: 10},
		framework.WithNamespace(namespace),
		framework.WithSessionTimeout(sessionTimeout),
		framework.WithConnectionTimeout(5*time.Second))
	if err != nil {
		return nil, err
	}
	if err := client.Start(); err != nil {
		client.Close()
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := client.BlockUntilConnected(ctx); err != nil {
		client.Close()
		return nil, fmt.Errorf("connect to ZooKeeper at %s: %w", connect, err)
	}
	return client, nil
}

// config sets up the demo.
type config struct {
	// SessionTimeout is the session timeout the stalling holder asks for;
	// 400ms to 10s, 1s when zero. The ensemble may negotiate it upward
	// (ZooKeeper allows 2 to 20 ticks), and the stall lasts longer than the
	// negotiated timeout.
	SessionTimeout time.Duration
}

func (c config) withDefaults() (config, error) {
	if c.SessionTimeout == 0 {
		c.SessionTimeout = time.Second
	}
	if c.SessionTimeout < 400*time.Millisecond || c.SessionTimeout > 10*time.Second {
		return c, fmt.Errorf("demo: SessionTimeout %v is outside 400ms..10s", c.SessionTimeout)
	}
	return c, nil
}
