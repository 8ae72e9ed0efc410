package framework

import (
	"time"

	"go.uber.org/zap"
)

// readiness decides when the session on the client's connection is ready for
// requests: once it is established; after a reconnect within the session,
// once go-zookeeper has written its SetWatches request or rewatchWait ran
// out (rewatch.go); once the sentinel watch is armed in the session (or
// arming it failed sentinelAttempts times); and once every WithAuth entry
// the connection has not accepted yet was sent. Its methods are the
// transitions, run by the event loop under core.mu; each returns the one
// step the caller takes next. It does no I/O; all it starts is the timer
// that bounds the wait for SetWatches, which reports through rewatchTimedOut.
type readiness struct {
	log  *zap.Logger
	auth []authInfo // the client's WithAuth entries
	// rewatchTimedOut is called, on the timer's goroutine, when the wait for
	// SetWatches of connection generation gen and epoch ran out; it must
	// not block and must come back to rewatched.
	rewatchTimedOut func(gen, epoch uint64)

	ready   bool          // operations may run
	readyCh chan struct{} // closed while ready

	gen        uint64 // the connection generation followed
	hasSession bool   // go-zookeeper reports a session on the connection

	rewatching   bool // waiting for SetWatches after a reconnect within the session
	rewatchTimer *time.Timer
	rewatchEpoch uint64 // increments each time the wait ends, so that a stopped timer is ignored

	sentinel         bool // the sentinel watch is armed in this session, or given up on
	sentinelRunning  bool
	sentinelFailures int

	authApplied int // how many WithAuth entries the connection has accepted
	authRunning bool
}

// readyStep is what the caller of a readiness transition does next.
type readyStep int

const (
	stepWait        readyStep = iota // nothing: an event still to come goes on
	stepArmSentinel                  // watch sentinelPath in the session, then report to sentinelDone
	stepSendAuth                     // send auth[authApplied:], then report to authDone
	stepReady                        // the session is ready: report the connection state
)

func newReadiness(log *zap.Logger, auth []authInfo, rewatchTimedOut func(gen, epoch uint64)) readiness {
	return readiness{log: log, auth: auth, rewatchTimedOut: rewatchTimedOut, readyCh: make(chan struct{})}
}

// newConnection starts over for connection generation gen, which has no
// session yet and has accepted no WithAuth entry.
func (r *readiness) newConnection(gen uint64) {
	r.stopRewatch()
	r.gen = gen
	r.hasSession = false
	r.sentinel, r.sentinelRunning = false, false
	r.authApplied, r.authRunning = 0, false
}

// sessionUp goes on from a session established on the connection
// (sameSession: the one it had before a reconnect, whose watches
// go-zookeeper sets again).
func (r *readiness) sessionUp(sameSession bool) readyStep {
	r.hasSession = true
	if sameSession {
		r.rewatching = true
		fire, gen, epoch := r.rewatchTimedOut, r.gen, r.rewatchEpoch
		r.rewatchTimer = time.AfterFunc(rewatchWait, func() { fire(gen, epoch) })
		return stepWait
	}
	r.sentinel = false // go-zookeeper dropped the old session's watches
	r.sentinelFailures = 0
	return r.next()
}

// sessionDown stops operations when the connection drops or the session
// expires; a new session arms the sentinel again (sessionUp).
func (r *readiness) sessionDown() {
	r.hasSession = false
	r.stopRewatch()
	r.notReady()
}

// notReady stops operations until the session is ready again.
func (r *readiness) notReady() {
	if r.ready {
		r.ready = false
		r.readyCh = make(chan struct{})
	}
}

// rewatched goes on once go-zookeeper has written SetWatches (timedOut
// false), or once the wait of epoch for it ran out.
func (r *readiness) rewatched(timedOut bool, epoch uint64) readyStep {
	if !r.rewatching || (timedOut && epoch != r.rewatchEpoch) {
		return stepWait
	}
	if timedOut {
		r.log.Debug("no SetWatches request after a reconnect; going on", zap.Duration("waited", rewatchWait))
	}
	r.stopRewatch()
	return r.next()
}

// stopRewatch ends the wait for SetWatches, if one is under way.
func (r *readiness) stopRewatch() {
	r.rewatching = false
	r.rewatchEpoch++
	if r.rewatchTimer != nil {
		r.rewatchTimer.Stop()
		r.rewatchTimer = nil
	}
}

// sentinelDone goes on from arming the sentinel watch. A result of an
// earlier session (current false), or an error (the connection went, or is
// going), leaves the sentinel unarmed, to be armed again once the session
// is up; after sentinelAttempts failures in one session readiness goes on
// without it, and reconnects wait out rewatchWait.
func (r *readiness) sentinelDone(current bool, err error) readyStep {
	r.sentinelRunning = false
	switch {
	case !current:
	case err == nil:
		r.sentinel = true
	default:
		r.sentinelFailures++
		if r.sentinelFailures >= sentinelAttempts {
			r.log.Warn("cannot watch the sentinel node; reconnects will wait for watches a little longer",
				zap.String("path", sentinelPath), zap.Error(err))
			r.sentinel = true // do not try again in this session
		}
	}
	return r.next()
}

// authDone goes on from sending WithAuth entries: the connection accepted
// the first applied of them. An entry the server rejected is skipped; one
// cut short by the connection is sent again.
func (r *readiness) authDone(applied int, err error) readyStep {
	r.authRunning = false
	r.authApplied = applied
	if err != nil && !isConnectionError(err) {
		r.log.Error("authentication rejected; continuing without it",
			zap.String("scheme", r.auth[applied].scheme), zap.Error(err))
		r.authApplied++
	}
	return r.next()
}

// next is the step towards readiness the session takes now: nothing while
// there is no session, go-zookeeper has still to set its watches again or
// a step is under way; otherwise the sentinel, then authentication, then
// ready.
func (r *readiness) next() readyStep {
	switch {
	case !r.hasSession || r.rewatching:
		return stepWait
	case !r.sentinel:
		if r.sentinelRunning {
			return stepWait
		}
		r.sentinelRunning = true
		return stepArmSentinel
	case r.authApplied < len(r.auth):
		if r.authRunning {
			return stepWait
		}
		r.authRunning = true
		return stepSendAuth
	}
	if !r.ready {
		r.ready = true
		close(r.readyCh)
	}
	return stepReady
}
