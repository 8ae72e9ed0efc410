package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/zkcurator/zkcurator/recipes/locks"
)

// actor is one participant that takes a lock on a goroutine of its own,
// records itself in a section while it holds the lock, and releases the
// lock when told to (finish) or when its context ends.
type actor struct {
	name string // how the story calls the actor: "reader 2"

	acquired chan struct{} // closed once the lock is held and recorded
	release  chan struct{} // closed to ask for the release
	done     chan error    // the outcome, once the lock is released or the attempt failed
	once     sync.Once
	leave    func() // ends the section record; set before acquired is closed
}

// startActor begins acquiring m (the "what" of the story: "read lock") as
// name; exclusive says how the actor counts in sec while it holds m.
func startActor(ctx context.Context, p *printer, sec *section, name, what string, m *locks.InterProcessMutex, exclusive bool) *actor {
	a := &actor{
		name:     name,
		acquired: make(chan struct{}),
		release:  make(chan struct{}),
		done:     make(chan error, 1),
	}
	go func() {
		if err := m.Acquire(ctx); err != nil {
			a.done <- fmt.Errorf("%s: acquire the %s: %w", name, what, err)
			return
		}
		a.leave = sec.Enter(name, exclusive)
		p.Say("%s holds the %s (%d inside)", name, what, sec.Stats().Inside)
		close(a.acquired)
		select {
		case <-a.release:
		case <-ctx.Done():
		}
		a.leave()
		p.Say("%s releases the %s", name, what)
		if err := m.Release(context.WithoutCancel(ctx)); err != nil {
			a.done <- fmt.Errorf("%s: release the %s: %w", name, what, err)
			return
		}
		a.done <- nil
	}()
	return a
}

// holds reports whether the actor has acquired its lock.
func (a *actor) holds() bool {
	select {
	case <-a.acquired:
		return true
	default:
		return false
	}
}

// awaitAcquired waits until the actor holds its lock.
func (a *actor) awaitAcquired(ctx context.Context, timeout time.Duration) error {
	select {
	case <-a.acquired:
		return nil
	case err := <-a.done:
		a.done <- err
		return err
	case <-time.After(timeout):
		return fmt.Errorf("%s did not get its lock within %v", a.name, timeout)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// finish asks the actor to release its lock and waits for the outcome.
func (a *actor) finish(timeout time.Duration) error {
	a.once.Do(func() { close(a.release) })
	select {
	case err := <-a.done:
		a.done <- err
		return err
	case <-time.After(timeout):
		return fmt.Errorf("%s did not finish within %v", a.name, timeout)
	}
}
