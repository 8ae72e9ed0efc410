package framework

import (
	"context"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework/internal/gozk"
)

// InjectSessionEvent feeds the client's state machine a go-zookeeper session
// event in state st, queued behind the real events as if the current
// connection had reported it. Tests use it to play event orders that
// go-zookeeper produces only in rare races.
func InjectSessionEvent(c *Client, st zk.State) {
	k := c.core
	k.mu.Lock()
	gen := k.sess.gen
	k.mu.Unlock()
	k.events.Push(loopEvent{kind: evZK, gen: gen, zkEvent: zk.Event{Type: zk.EventSession, State: st}})
}

// GenerationDialer returns dial wrapped as the client's current connection
// generation wraps its dials, so that tests can try that generation's dialer
// after the client has moved on from it.
func GenerationDialer(c *Client, dial zk.Dialer) zk.Dialer {
	k := c.core
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.sess.gate.Dialer(dial, func() {})
}

// ErrGivenUp is what a dial of a given-up generation returns.
var ErrGivenUp = gozk.ErrRetired

// SetPendingWatchEvents lowers the bound of a PersistentWatch's queue for
// the rest of the test.
func SetPendingWatchEvents(t interface{ Cleanup(func()) }, n int) {
	old := pendingWatchEvents
	pendingWatchEvents = n
	t.Cleanup(func() { pendingWatchEvents = old })
}

// SendAddWatchAs makes AddWatch send opcode op for the rest of the test, so
// that a test sees how the client takes an old server's answer to an
// opcode it does not know.
func SendAddWatchAs(t interface{ Cleanup(func()) }, op int32) {
	old := opAddWatch
	opAddWatch = op
	t.Cleanup(func() { opAddWatch = old })
}

// SendMultiReadAs makes MultiRead send opcode op for the rest of the test,
// as SendAddWatchAs does AddWatch.
func SendMultiReadAs(t interface{ Cleanup(func()) }, op int32) {
	old := opMultiRead
	opMultiRead = op
	t.Cleanup(func() { opMultiRead = old })
}

// WithLookup makes the client resolve server names with lookup instead of
// the system's resolver.
func WithLookup(lookup func(ctx context.Context, host string) ([]string, error)) Option {
	return func(c *config) { c.lookup = lookup }
}
