package framework

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// The transitions of readiness, played without a server: which step each
// event leads to, and when operations may run.

var stepNames = map[readyStep]string{
	stepWait: "wait", stepArmSentinel: "arm sentinel", stepSendAuth: "send auth", stepReady: "ready",
}

type rewatchTimeout struct{ gen, epoch uint64 }

// newTestReadiness returns a readiness for a client with auth entries, on
// connection generation 1, and what its rewatch timer reports.
func newTestReadiness(t *testing.T, auth ...authInfo) (*readiness, *observer.ObservedLogs, chan rewatchTimeout) {
	core, logs := observer.New(zapcore.DebugLevel)
	timeouts := make(chan rewatchTimeout, 8)
	r := newReadiness(zap.New(core), auth, func(gen, epoch uint64) { timeouts <- rewatchTimeout{gen, epoch} })
	r.newConnection(1)
	t.Cleanup(r.stopRewatch)
	return &r, logs, timeouts
}

func expectStep(t *testing.T, what string, got, want readyStep) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: step %q, want %q", what, stepNames[got], stepNames[want])
	}
}

func expectReady(t *testing.T, r *readiness, want bool) {
	t.Helper()
	closed := false
	select {
	case <-r.readyCh:
		closed = true
	default:
	}
	if r.ready != want || closed != want {
		t.Fatalf("ready %v with its channel closed %v, want both %v", r.ready, closed, want)
	}
}

// A new session arms the sentinel, then sends the auth entries, then is
// ready; each step starts once.
func TestReadinessOfANewSession(t *testing.T) {
	r, _, _ := newTestReadiness(t, authInfo{"digest", []byte("a:1")}, authInfo{"digest", []byte("b:2")})
	expectStep(t, "session up", r.sessionUp(false), stepArmSentinel)
	expectStep(t, "session up again while arming", r.sessionUp(false), stepWait)
	expectReady(t, r, false)
	expectStep(t, "sentinel armed", r.sentinelDone(true, nil), stepSendAuth)
	expectReady(t, r, false)
	expectStep(t, "auth sent", r.authDone(2, nil), stepReady)
	expectReady(t, r, true)
}

// Without a session nothing goes on, whatever reports come back.
func TestReadinessWaitsForASession(t *testing.T) {
	r, _, _ := newTestReadiness(t, authInfo{"digest", []byte("a:1")})
	expectStep(t, "sentinel armed", r.sentinelDone(true, nil), stepWait)
	expectStep(t, "auth sent", r.authDone(1, nil), stepWait)
	expectStep(t, "SetWatches written", r.rewatched(false, 0), stepWait)
	expectReady(t, r, false)
	expectStep(t, "session up", r.sessionUp(false), stepArmSentinel)
}

// A reconnect within the session stops operations until go-zookeeper has
// written SetWatches; the sentinel and the accepted auth stay.
func TestReadinessOfAResumedSessionWaitsForSetWatches(t *testing.T) {
	r, _, _ := newTestReadiness(t, authInfo{"digest", []byte("a:1")})
	r.sessionUp(false)
	r.sentinelDone(true, nil)
	expectStep(t, "auth sent", r.authDone(1, nil), stepReady)

	r.sessionDown()
	expectReady(t, r, false)
	expectStep(t, "session resumed", r.sessionUp(true), stepWait)
	expectStep(t, "sentinel reported meanwhile", r.sentinelDone(true, nil), stepWait)
	expectReady(t, r, false)
	expectStep(t, "SetWatches written", r.rewatched(false, 0), stepReady)
	expectReady(t, r, true)
	expectStep(t, "SetWatches reported again", r.rewatched(false, 0), stepWait)
}

// The wait for SetWatches is bounded by a timer that reports its
// connection generation and epoch; a timer of an earlier wait is ignored.
func TestReadinessBoundsTheWaitForSetWatches(t *testing.T) {
	r, logs, timeouts := newTestReadiness(t)
	r.newConnection(7)
	r.sessionUp(false)
	expectStep(t, "sentinel armed", r.sentinelDone(true, nil), stepReady)
	r.sessionDown()
	r.sessionUp(true)
	stale := r.rewatchEpoch
	r.sessionDown()
	r.sessionUp(true)

	expectStep(t, "an earlier wait's timeout", r.rewatched(true, stale), stepWait)
	expectReady(t, r, false)
	var got rewatchTimeout
	select {
	case got = <-timeouts:
	case <-time.After(rewatchWait + 10*time.Second):
		t.Fatalf("no timeout reported within %v of a %v wait", rewatchWait+10*time.Second, rewatchWait)
	}
	if want := (rewatchTimeout{7, r.rewatchEpoch}); got != want {
		t.Fatalf("timer reported %+v, want %+v (the stopped wait's timer must not fire)", got, want)
	}
	expectStep(t, "the wait's timeout", r.rewatched(true, got.epoch), stepReady)
	if logs.FilterMessageSnippet("no SetWatches").Len() != 1 {
		t.Errorf("the timeout is not logged once: %v", logs.All())
	}
}

// An expired session takes the sentinel with it: the next session arms it
// again.
func TestReadinessRearmsTheSentinelAfterExpiry(t *testing.T) {
	r, _, _ := newTestReadiness(t)
	r.sessionUp(false)
	expectStep(t, "sentinel armed", r.sentinelDone(true, nil), stepReady)
	r.sessionDown()
	expectReady(t, r, false)
	expectStep(t, "new session", r.sessionUp(false), stepArmSentinel)
}

// A sentinel result of an earlier session arms it again; after
// sentinelAttempts failures in a session readiness goes on without it.
func TestReadinessArmsTheSentinelAgainAndGivesUp(t *testing.T) {
	r, logs, _ := newTestReadiness(t)
	r.sessionUp(false)
	expectStep(t, "an earlier session's sentinel", r.sentinelDone(false, nil), stepArmSentinel)
	failure := zk.ErrConnectionClosed
	for i := 1; i < sentinelAttempts; i++ {
		expectStep(t, "a failure", r.sentinelDone(true, failure), stepArmSentinel)
	}
	expectReady(t, r, false)
	expectStep(t, "the last failure", r.sentinelDone(true, failure), stepReady)
	if logs.FilterLevelExact(zapcore.WarnLevel).Len() != 1 {
		t.Errorf("giving up the sentinel is not warned of once: %v", logs.All())
	}

	r.sessionDown()
	expectStep(t, "new session", r.sessionUp(false), stepArmSentinel)
	expectStep(t, "a failure in it", r.sentinelDone(true, failure), stepArmSentinel)
}

// An auth entry the server rejects is skipped and logged by scheme, never
// with its credential; one cut short by the connection is sent again, and
// a new connection sends them all.
func TestReadinessSkipsRejectedAuthAndResendsInterruptedAuth(t *testing.T) {
	secret := "user:s3cret"
	r, logs, _ := newTestReadiness(t,
		authInfo{"digest", []byte("a:1")}, authInfo{"rejected-scheme", []byte(secret)}, authInfo{"digest", []byte("c:3")})
	r.sessionUp(false)
	expectStep(t, "sentinel armed", r.sentinelDone(true, nil), stepSendAuth)
	expectStep(t, "second entry rejected", r.authDone(1, zk.ErrAuthFailed), stepSendAuth)
	if r.authApplied != 2 {
		t.Fatalf("sending again from entry %d, want 2 (after the rejected one)", r.authApplied)
	}
	rejections := logs.FilterMessageSnippet("rejected").All()
	if len(rejections) != 1 || rejections[0].ContextMap()["scheme"] != "rejected-scheme" {
		t.Errorf("rejection logged as %v, want once with its scheme", rejections)
	}
	for _, e := range logs.All() {
		if strings.Contains(fmt.Sprint(e.Message, e.ContextMap()), secret) {
			t.Errorf("a log line holds the credential: %v", e)
		}
	}

	expectStep(t, "cut short", r.authDone(2, zk.ErrConnectionClosed), stepSendAuth)
	if r.authApplied != 2 {
		t.Fatalf("sending again from entry %d, want 2 (the one cut short)", r.authApplied)
	}
	r.sessionDown()
	expectStep(t, "cut short, then disconnected", r.authDone(2, zk.ErrConnectionClosed), stepWait)
	r.sessionUp(true)
	expectStep(t, "SetWatches written", r.rewatched(false, 0), stepSendAuth)
	expectStep(t, "all sent", r.authDone(3, nil), stepReady)

	r.newConnection(2)
	r.sessionUp(false)
	r.sentinelDone(true, nil)
	if r.authApplied != 0 || !r.authRunning {
		t.Fatalf("new connection sends auth from entry %d (running %v), want 0", r.authApplied, r.authRunning)
	}
}
