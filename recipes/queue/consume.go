package queue

import (
	"context"
	"errors"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
)

// retryPause is how long the loop waits after a failed listing or item
// before it looks again, unless a watch or a new connection wakes it first.
const retryPause = time.Second

// run is the consumer loop: list the items with a watch, take them in the
// queue's order, then wait for a change. It returns when ctx ends.
func (e *engine) run(ctx context.Context) {
	for ctx.Err() == nil {
		e.round(ctx)
	}
}

// round takes the items of one listing and waits for a reason to list
// again: the children changed, a lock held by another consumer went away,
// the first delayed item fell due, the connection came back, or a failure
// asks for a pause.
func (e *engine) round(ctx context.Context) {
	round, end := context.WithCancel(ctx)
	defer end()
	e.sweep(round)
	children, _, watch, err := e.c.ChildrenW(round, e.path)
	if errors.Is(err, zk.ErrNoNode) {
		// The queue node was deleted: make it again, as Start did, and list again.
		if err = e.ensure(round, e.path); err == nil {
			return
		}
	}
	if errors.Is(err, framework.ErrClosed) {
		<-ctx.Done() // the client is closed: nothing more to take
		return
	}
	if err != nil {
		if ctx.Err() == nil {
			e.log.Warn("queue: listing the items failed", zap.Error(err))
		}
		e.pause(ctx, nil, nil, e.clock.Now().Add(retryPause))
		return
	}
	freed := make(chan struct{}, 1)
	var next time.Time
	for _, name := range e.naming.sortItems(children) {
		if ctx.Err() != nil {
			return
		}
		if due := e.naming.due(name); !due.IsZero() && e.clock.Now().Before(due) {
			next = earliest(next, due) // sorted by due time: the rest are later still
			break
		}
		busy, err := e.take(ctx, name)
		if err != nil && ctx.Err() == nil {
			e.log.Warn("queue: taking an item failed", zap.String("item", name), zap.Error(err))
			next = earliest(next, e.clock.Now().Add(retryPause))
		}
		if busy != nil {
			go signalWhen(round, busy, freed)
		}
		if e.naming.refresh && fired(watch) {
			return // list again: a new item may sort first
		}
	}
	select {
	case <-watch:
	case <-freed:
	default:
		e.pause(ctx, watch, freed, next)
	}
}

// pause waits until watch fires, a held lock is freed, the time at (if not
// zero) comes, the connection comes back, or ctx ends.
func (e *engine) pause(ctx context.Context, watch <-chan zk.Event, freed <-chan struct{}, at time.Time) {
	var timer <-chan time.Time
	if !at.IsZero() {
		t := e.clock.NewTimer(e.clock.Until(at))
		defer t.Stop()
		timer = t.C()
	}
	select {
	case <-watch:
	case <-freed:
	case <-timer:
	case <-e.wake:
	case <-ctx.Done():
	}
}

// signalWhen signals freed when the watch ch fires, unless ctx ends first.
func signalWhen(ctx context.Context, ch <-chan zk.Event, freed chan<- struct{}) {
	select {
	case <-ch:
		select {
		case freed <- struct{}{}:
		default:
		}
	case <-ctx.Done():
	}
}

func fired(watch <-chan zk.Event) bool {
	select {
	case <-watch:
		return true
	default:
		return false
	}
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}
