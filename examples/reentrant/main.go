// Command reentrant shows that InterProcessMutex nests per handle: one handle
// acquires the lock several times and keeps a single node, released only by
// the outermost Release, while a second handle on the same client waits. It
// exits with status 1 if the node changed, vanished early or the second
// handle got in too soon.
//
//	go run ./examples/reentrant [-depth 3]
//
// It uses the ensemble in ZK_CONNECT, or an embedded ZooKeeper when that is
// unset. Read run from the top: one client, two mutex handles on one path,
// nested Acquire and Release through the first, ErrNotOwner for one Release
// too many.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/retry"
)

func main() {
	depth := flag.Int("depth", 3, "how many times the first handle acquires, nested (2..10)")
	flag.Parse()
	cfg := config{Depth: *depth}
	// runProgram (setup.go) finds ZooKeeper, bounds the time and exits with
	// status 1 when run fails or its promise did not hold.
	runProgram(func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out, cfg)
	})
}

// lockPath is the lock both handles ask for.
const lockPath = "/locks/account-42"

// run shows that InterProcessMutex nests per handle: handle A acquires the
// lock cfg.Depth times, nested, and keeps one node; handle B, a second
// handle on the same client, waits all along, because reentrancy belongs to
// a handle, not to a process or a goroutine. The node goes only at A's
// outermost Release, and then B gets the lock. It fails with
// errInvariant when any of that does not hold.
func run(ctx context.Context, connect string, out io.Writer, cfg config) error {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	st := newStage(connect, out, "reentrant")
	defer st.Close()
	p := st.Printer
	p.Title("reentrant: handle A acquires one InterProcessMutex %d times, nested; handle B waits", cfg.Depth)

	c, err := newClient(ctx, connect, st.Namespace())
	if err != nil {
		return err
	}
	defer c.Close()
	a, err := locks.NewInterProcessMutex(c, lockPath)
	if err != nil {
		return err
	}
	b, err := locks.NewInterProcessMutex(c, lockPath)
	if err != nil {
		return err
	}
	v := &verdict{}

	if err := a.Acquire(ctx); err != nil {
		return fmt.Errorf("A: acquire: %w", err)
	}
	node := a.LockPath()
	p.Say("A acquired (depth 1), node %s", shortNode(node))

	bDone := make(chan error, 1)
	go func() { bDone <- b.Acquire(ctx) }()
	p.Say("B (a second handle on the same client) asks for the lock")
	err = waitUntil(ctx, arrivalTimeout, "B's node is in line", func(ctx context.Context) (bool, error) {
		nodes, err := a.ParticipantNodes(ctx)
		return len(nodes) == 2, err
	})
	if err != nil {
		return errors.Join(err, releaseAll(a, 1), awaitAndRelease(b, bDone))
	}
	p.Say("B waits: its node is second in line")

	for depth := 2; depth <= cfg.Depth; depth++ {
		if err := a.Acquire(ctx); err != nil {
			return errors.Join(fmt.Errorf("A: nested acquire: %w", err), releaseAll(a, depth-1), awaitAndRelease(b, bDone))
		}
		nodes, err := a.ParticipantNodes(ctx)
		if err != nil {
			return errors.Join(err, releaseAll(a, depth), awaitAndRelease(b, bDone))
		}
		p.Say("A acquired again (depth %d): same node %s, still %d nodes under the lock", depth, shortNode(a.LockPath()), len(nodes))
		v.Expect(a.LockPath() == node, "nested acquisition %d changed the node from %s to %s", depth, node, a.LockPath())
		v.Expect(len(nodes) == 2, "nested acquisition %d left %d nodes under the lock, want 2", depth, len(nodes))
	}

	for depth := cfg.Depth - 1; depth >= 1; depth-- {
		if err := a.Release(ctx); err != nil {
			return errors.Join(fmt.Errorf("A: release: %w", err), releaseAll(a, depth), awaitAndRelease(b, bDone))
		}
		stat, err := c.Exists(ctx, node)
		if err != nil {
			return errors.Join(err, releaseAll(a, depth), awaitAndRelease(b, bDone))
		}
		bHolds := b.IsAcquiredInThisProcess()
		p.Say("A released once (depth %d): node still there: %t, B still waiting: %t", depth, stat != nil, !bHolds)
		v.Expect(stat != nil, "A's node vanished at depth %d, before the outermost release", depth)
		v.Expect(!bHolds, "B got the lock while A still held it at depth %d", depth)
	}

	if err := a.Release(ctx); err != nil {
		return errors.Join(fmt.Errorf("A: outermost release: %w", err), awaitAndRelease(b, bDone))
	}
	stat, err := c.Exists(ctx, node)
	if err != nil {
		return errors.Join(err, awaitAndRelease(b, bDone))
	}
	p.Say("A released the outermost hold (depth 0): node still there: %t", stat != nil)
	v.Expect(stat == nil, "A's node %s survived the outermost release", node)

	select {
	case err := <-bDone:
		if err != nil {
			return fmt.Errorf("B: acquire: %w", err)
		}
	case <-time.After(handoffTimeout):
		return errors.Join(fmt.Errorf("B did not get the lock within %v of A's release", handoffTimeout), awaitAndRelease(b, bDone))
	}
	p.Say("B acquired, node %s", shortNode(b.LockPath()))
	v.Expect(b.LockPath() != node, "B holds A's old node %s", node)

	err = a.Release(ctx)
	p.Say("A releases once more: %v", err)
	v.Expect(errors.Is(err, locks.ErrNotOwner), "an extra Release by A returned %v, want ErrNotOwner", err)

	if err := b.Release(ctx); err != nil {
		return fmt.Errorf("B: release: %w", err)
	}
	p.Say("B released")
	return v.Conclude(p, "nested acquisitions shared one node, freed only by the outermost Release; the other handle waited")
}

// newClient connects one client, as one process would: Curator's exponential
// backoff for retries, a session timeout, and the demo's namespace under
// which every path is resolved. Start returns at once; BlockUntilConnected
// waits (here at most 15s) for the first connection.
func newClient(ctx context.Context, connect, namespace string) (*framework.Client, error) {
	client, err := framework.NewClient(connect,
		retry.ExponentialBackoff{BaseSleep: 50 * time.Millisecond, MaxSleep: time.Second, MaxRetries: 10},
		framework.WithNamespace(namespace),
		framework.WithSessionTimeout(4*time.Second),
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

// config sizes the demo.
type config struct {
	// Depth is how many times handle A acquires the lock, nested; 2 to 10,
	// 3 when zero.
	Depth int
}

func (c config) withDefaults() (config, error) {
	if c.Depth == 0 {
		c.Depth = 3
	}
	if c.Depth < 2 || c.Depth > 10 {
		return c, fmt.Errorf("demo: Depth %d is outside 2..10", c.Depth)
	}
	return c, nil
}
