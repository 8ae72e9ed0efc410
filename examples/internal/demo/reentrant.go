package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/zkcurator/zkcurator/recipes/locks"
)

// ReentrantConfig sizes the reentrant demo.
type ReentrantConfig struct {
	// Depth is how many times handle A acquires the lock, nested; 2 to 10,
	// 3 when zero.
	Depth int
}

func (c ReentrantConfig) withDefaults() (ReentrantConfig, error) {
	if c.Depth == 0 {
		c.Depth = 3
	}
	if c.Depth < 2 || c.Depth > 10 {
		return c, fmt.Errorf("demo: Depth %d is outside 2..10", c.Depth)
	}
	return c, nil
}

// handoffTimeout bounds how long a waiter may take to get a released lock.
const handoffTimeout = 10 * time.Second

// Reentrant shows that InterProcessMutex nests per handle: handle A acquires
// the lock Depth times, nested, and keeps one node; handle B, a
// second handle on the same client, waits all along, because reentrancy
// belongs to a handle, not to a process or a goroutine. The node goes only at
// A's outermost Release, and then B gets the lock. It fails with ErrInvariant
// when any of that does not hold.
func Reentrant(ctx context.Context, connect string, out io.Writer, cfg ReentrantConfig) error {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	st := newStage(connect, out, "reentrant")
	defer st.close()
	p := st.p
	p.title("reentrant: handle A acquires one InterProcessMutex %d times, nested; handle B waits", cfg.Depth)

	c, err := st.client(ctx)
	if err != nil {
		return err
	}
	const lockPath = "/locks/account-42"
	a := locks.NewInterProcessMutex(c, lockPath)
	b := locks.NewInterProcessMutex(c, lockPath)
	v := &verdict{}

	if err := a.Acquire(ctx); err != nil {
		return fmt.Errorf("A: acquire: %w", err)
	}
	node := a.LockPath()
	p.say("A acquired (depth 1), node %s", shortNode(node))

	bDone := make(chan error, 1)
	go func() { bDone <- b.Acquire(ctx) }()
	p.say("B (a second handle on the same client) asks for the lock")
	err = waitUntil(ctx, arrivalTimeout, "B's node is in line", func(ctx context.Context) (bool, error) {
		nodes, err := a.ParticipantNodes(ctx)
		return len(nodes) == 2, err
	})
	if err != nil {
		return errors.Join(err, releaseAll(a, 1), awaitAndRelease(b, bDone))
	}
	p.say("B waits: its node is second in line")

	for depth := 2; depth <= cfg.Depth; depth++ {
		if err := a.Acquire(ctx); err != nil {
			return errors.Join(fmt.Errorf("A: nested acquire: %w", err), releaseAll(a, depth-1), awaitAndRelease(b, bDone))
		}
		nodes, err := a.ParticipantNodes(ctx)
		if err != nil {
			return errors.Join(err, releaseAll(a, depth), awaitAndRelease(b, bDone))
		}
		p.say("A acquired again (depth %d): same node %s, still %d nodes under the lock", depth, shortNode(a.LockPath()), len(nodes))
		v.expect(a.LockPath() == node, "nested acquisition %d changed the node from %s to %s", depth, node, a.LockPath())
		v.expect(len(nodes) == 2, "nested acquisition %d left %d nodes under the lock, want 2", depth, len(nodes))
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
		p.say("A released once (depth %d): node still there: %t, B still waiting: %t", depth, stat != nil, !bHolds)
		v.expect(stat != nil, "A's node vanished at depth %d, before the outermost release", depth)
		v.expect(!bHolds, "B got the lock while A still held it at depth %d", depth)
	}

	if err := a.Release(ctx); err != nil {
		return errors.Join(fmt.Errorf("A: outermost release: %w", err), awaitAndRelease(b, bDone))
	}
	stat, err := c.Exists(ctx, node)
	if err != nil {
		return errors.Join(err, awaitAndRelease(b, bDone))
	}
	p.say("A released the outermost hold (depth 0): node still there: %t", stat != nil)
	v.expect(stat == nil, "A's node %s survived the outermost release", node)

	select {
	case err := <-bDone:
		if err != nil {
			return fmt.Errorf("B: acquire: %w", err)
		}
	case <-time.After(handoffTimeout):
		return errors.Join(fmt.Errorf("B did not get the lock within %v of A's release", handoffTimeout), awaitAndRelease(b, bDone))
	}
	p.say("B acquired, node %s", shortNode(b.LockPath()))
	v.expect(b.LockPath() != node, "B holds A's old node %s", node)

	err = a.Release(ctx)
	p.say("A releases once more: %v", err)
	v.expect(errors.Is(err, locks.ErrNotOwner), "an extra Release by A returned %v, want ErrNotOwner", err)

	if err := b.Release(ctx); err != nil {
		return fmt.Errorf("B: release: %w", err)
	}
	p.say("B released")
	return v.conclude(p, "nested acquisitions shared one node, freed only by the outermost Release; the other handle waited")
}

// releaseAll undoes depth holds of m on the way out of a failed demo.
func releaseAll(m *locks.InterProcessMutex, depth int) error {
	ctx, cancel := context.WithTimeout(context.Background(), handoffTimeout)
	defer cancel()
	var errs []error
	for range depth {
		errs = append(errs, m.Release(ctx))
	}
	return errors.Join(errs...)
}

// awaitAndRelease waits for an acquisition in flight on m (whose result
// arrives on done) and releases it if it succeeded.
func awaitAndRelease(m *locks.InterProcessMutex, done <-chan error) error {
	select {
	case err := <-done:
		if err != nil {
			return nil
		}
		return releaseAll(m, 1)
	case <-time.After(handoffTimeout):
		return errors.New("an acquisition did not end after its lock was released")
	}
}
