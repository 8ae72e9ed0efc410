package framework_test

import (
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

func isDone(s framework.Session) bool {
	select {
	case <-s.Done():
		return true
	default:
		return false
	}
}

// awaitDone waits up to testWait for s to end.
func awaitDone(t *testing.T, s framework.Session, why string) {
	t.Helper()
	select {
	case <-s.Done():
	case <-time.After(testWait):
		t.Fatalf("session 0x%x still not done %v after %s", s.ID(), testWait, why)
	}
}

// The value of the current session carries SessionID's id and is open and
// current; a value for any other id, the zero value and a value taken before
// Start are done and never current.
func TestSessionMatchesSessionID(t *testing.T) {
	unstarted := newUnstartedClient(t, sharedServer(t).ConnectString())
	if s := unstarted.Session(); s.ID() != 0 || !isDone(s) || s.IsCurrent() {
		t.Errorf("before Start: Session() = 0x%x, done %v, current %v; want 0, done, not current", s.ID(), isDone(s), s.IsCurrent())
	}
	c := newClient(t, sharedServer(t).ConnectString())
	s := c.Session()
	if s.ID() == 0 || s.ID() != c.SessionID() {
		t.Fatalf("Session().ID() = 0x%x, SessionID() = 0x%x; want the same, non-zero", s.ID(), c.SessionID())
	}
	if isDone(s) || !s.IsCurrent() {
		t.Fatalf("the current session: done %v, current %v; want open and current", isDone(s), s.IsCurrent())
	}
	if again := c.Session(); again.Done() != s.Done() {
		t.Error("two values of one session have different Done channels")
	}
	if of := c.SessionOf(s.ID()); of.ID() != s.ID() || of.Done() != s.Done() || !of.IsCurrent() {
		t.Errorf("SessionOf(current id) = 0x%x, current %v; want the current session", of.ID(), of.IsCurrent())
	}
	for _, other := range []framework.Session{c.SessionOf(s.ID() + 1), c.SessionOf(0), {}} {
		if !isDone(other) || other.IsCurrent() {
			t.Errorf("session 0x%x: done %v, current %v; want done and not current", other.ID(), isDone(other), other.IsCurrent())
		}
	}
	if got := c.UsingNamespace("ns").Session(); got.Done() != s.Done() {
		t.Error("a namespace view hands out another value of the same session")
	}
}

// A cut connection that comes back within the session timeout keeps the
// session: its value stays open and current.
func TestSessionOutlivesAReconnect(t *testing.T) {
	p := zktest.StartProxy(t, sharedServer(t).ConnectString())
	c, r := startRecorded(t, p.Addr(), framework.WithSessionTimeout(3*time.Second))
	s := c.Session()

	p.Sever()
	r.await(t, C, S, R)
	if isDone(s) || !s.IsCurrent() || c.Session().ID() != s.ID() {
		t.Fatalf("after a reconnect in session 0x%x: done %v, current %v, session now 0x%x; want it open and current",
			s.ID(), isDone(s), s.IsCurrent(), c.Session().ID())
	}
}

// A simulated expiry gives the session up while still partitioned: it is
// done by the time LOST is reported.
func TestSessionDoneOnSimulatedExpiry(t *testing.T) {
	p := zktest.StartProxy(t, sharedServer(t).ConnectString())
	c, r := startRecorded(t, p.Addr())
	s := c.Session()

	p.Pause()
	r.await(t, C, S, L)
	if !isDone(s) || s.IsCurrent() {
		t.Fatalf("given-up session 0x%x after LOST: done %v, current %v; want done", s.ID(), isDone(s), s.IsCurrent())
	}
	p.Resume()
	r.await(t, C, S, L, R)
	if next := c.Session(); next.ID() == s.ID() || isDone(next) {
		t.Fatalf("after RECONNECTED the session is 0x%x (done %v); want a new, open one", next.ID(), isDone(next))
	}
}

// Close ends the session; the client's values are done from then on, with
// SessionID's id.
func TestSessionDoneOnClose(t *testing.T) {
	c := newClient(t, sharedServer(t).ConnectString())
	s := c.Session()
	c.Close()
	awaitDone(t, s, "Close")
	if s.IsCurrent() {
		t.Error("the session of a closed client is current")
	}
	if after := c.Session(); after.ID() != c.SessionID() || !isDone(after) {
		t.Errorf("after Close: Session() = 0x%x (done %v), SessionID() = 0x%x; want the same id, done", after.ID(), isDone(after), c.SessionID())
	}
}
