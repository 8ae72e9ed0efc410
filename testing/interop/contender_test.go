package interop

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/retry"
)

// goSessionTimeout is the session timeout of the Go clients, like the helpers'.
const goSessionTimeout = 2 * time.Second

// acquireWait bounds every single acquire in these tests.
const acquireWait = 20 * time.Second

// handleSeq numbers helper handles (see fresh).
var handleSeq atomic.Int64

// newGoClient connects a zkcurator client for the test and closes it at the end.
func newGoClient(t *testing.T, connect string) *framework.Client {
	t.Helper()
	c, err := framework.NewClient(connect,
		retry.ExponentialBackoff{BaseSleep: 50 * time.Millisecond, MaxSleep: time.Second, MaxRetries: 10},
		framework.WithSessionTimeout(goSessionTimeout), framework.WithConnectionTimeout(goSessionTimeout))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("close Go client: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.BlockUntilConnected(ctx); err != nil {
		t.Fatal(err)
	}
	return c
}

// contender is one lock handle of either language.
type contender interface {
	fmt.Stringer
	// start begins an acquire and returns at once.
	start(ctx context.Context) *pending
	// release releases the lock and returns the time right before it began.
	release(ctx context.Context) (time.Time, error)
	// participants lists the lock's contenders as this side's library sees them.
	participants(ctx context.Context) ([]string, error)
}

// pending is an acquire in progress.
type pending struct {
	owner string
	done  chan struct{}
	node  string    // the lock node, once done
	at    time.Time // right after the acquire returned
	err   error
}

// wait waits for the acquire to finish, at most until ctx ends.
func (p *pending) wait(ctx context.Context) error {
	select {
	case <-p.done:
		return p.err
	case <-ctx.Done():
		return fmt.Errorf("%s: still acquiring: %w", p.owner, ctx.Err())
	}
}

// finished reports whether the acquire has returned.
func (p *pending) finished() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// goContender is a zkcurator lock handle (a mutex, or one side of a read/write lock).
type goContender struct {
	name string
	m    *locks.InterProcessMutex
}

func (g *goContender) String() string { return g.name }

func (g *goContender) start(ctx context.Context) *pending {
	p := &pending{owner: g.name, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		if p.err = g.m.Acquire(ctx); p.err == nil {
			p.at, p.node = now(), g.m.LockPath()
		}
	}()
	return p
}

func (g *goContender) release(ctx context.Context) (time.Time, error) {
	at := now()
	return at, g.m.Release(ctx)
}

func (g *goContender) participants(ctx context.Context) ([]string, error) {
	return g.m.ParticipantNodes(ctx)
}

// javaContender is a Curator lock handle in a helper.
type javaContender struct {
	h      *Helper
	target string
}

func (j *javaContender) String() string { return j.h.Name() + ":" + j.target }

func (j *javaContender) start(ctx context.Context) *pending {
	p := &pending{owner: j.String(), done: make(chan struct{})}
	call, err := j.h.AcquireAsync(j.target, acquireWait)
	go func() {
		defer close(p.done)
		if p.err = err; err != nil {
			return
		}
		var e Event
		if e, p.err = call.Acquired(ctx); p.err == nil {
			p.at, p.node = e.At, e.Field(1)
		}
	}()
	return p
}

func (j *javaContender) release(ctx context.Context) (time.Time, error) {
	e, err := j.h.Release(ctx, j.target)
	return e.At, err
}

func (j *javaContender) participants(ctx context.Context) ([]string, error) {
	return j.h.Participants(ctx, j.target)
}

// acquire acquires through c and fails the test if it cannot.
func acquire(t *testing.T, ctx context.Context, c contender) *pending {
	t.Helper()
	p := c.start(ctx)
	if err := p.wait(ctx); err != nil {
		t.Fatal(err)
	}
	return p
}

// release releases through c, failing the test on error, and returns the time
// right before the release began.
func release(t *testing.T, ctx context.Context, c contender) time.Time {
	t.Helper()
	at, err := c.release(ctx)
	if err != nil {
		t.Fatalf("%s: release: %v", c, err)
	}
	return at
}

// javaMutex defines a Curator InterProcessMutex on path in h.
func javaMutex(t *testing.T, ctx context.Context, h *Helper, handle, path string) *javaContender {
	t.Helper()
	if err := h.Mutex(ctx, handle, path); err != nil {
		t.Fatal(err)
	}
	return &javaContender{h: h, target: handle}
}

// javaRW defines a Curator InterProcessReadWriteLock on path in h and returns its sides.
func javaRW(t *testing.T, ctx context.Context, h *Helper, handle, path string) (read, write *javaContender) {
	t.Helper()
	if err := h.RWLock(ctx, handle, path); err != nil {
		t.Fatal(err)
	}
	return &javaContender{h: h, target: handle + "/read"}, &javaContender{h: h, target: handle + "/write"}
}

// goMutex is a zkcurator InterProcessMutex on path.
func goMutex(c *framework.Client, name, path string) *goContender {
	return &goContender{name: name, m: built(locks.NewInterProcessMutex(c, path))}
}
