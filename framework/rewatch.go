package framework

import (
	"time"

	"go.uber.org/zap"
)

// After a reconnect within the session, go-zookeeper sets the session's
// watches again from the zxid it last saw (see internal/gozk for why that
// needs care). The client runs no operation on a reconnected connection
// until go-zookeeper has written its SetWatches request, and so that there
// always is one, it keeps a watch of its own on sentinelPath, whose data
// never changes. A request already queued inside go-zookeeper when the
// connection dropped still goes out first on the next one, so the
// connection itself also holds back replies until SetWatches is written
// (gozk.Gate).
const (
	sentinelPath = "/zookeeper"
	// rewatchWait bounds the wait for a SetWatches request, should none come.
	rewatchWait = time.Second
	// sentinelAttempts bounds the failures to arm the sentinel in a session.
	sentinelAttempts = 3
)

// sessionUpLocked goes on from a session established on the connection
// (sameSession: one it had before a reconnect) towards readiness: once
// go-zookeeper has set the watches again, and once the sentinel is armed.
func (k *core) sessionUpLocked(sameSession bool) {
	s := &k.sess
	if sameSession {
		s.rewatching = true
		gen, epoch := s.gen, s.rewatchEpoch
		s.rewatchTimer = time.AfterFunc(rewatchWait, func() {
			k.events.push(loopEvent{kind: evRewatched, gen: gen, epoch: epoch, timedOut: true})
		})
		return
	}
	s.sentinel = false // go-zookeeper dropped the old session's watches
	s.sentinelFailures = 0
	k.sentinelOrReadyLocked()
}

// rewatchedLocked handles go-zookeeper's SetWatches request, or the end of
// the wait for it.
func (k *core) rewatchedLocked(ev loopEvent) {
	s := &k.sess
	if !s.rewatching || (ev.timedOut && ev.epoch != s.rewatchEpoch) {
		return
	}
	if ev.timedOut {
		k.log.Debug("no SetWatches request after a reconnect; going on", zap.Duration("waited", rewatchWait))
	}
	k.stopRewatchLocked()
	if s.hasSession {
		k.sentinelOrReadyLocked()
	}
}

func (k *core) stopRewatchLocked() {
	s := &k.sess
	s.rewatching = false
	s.rewatchEpoch++
	if s.rewatchTimer != nil {
		s.rewatchTimer.Stop()
		s.rewatchTimer = nil
	}
}

// sentinelOrReadyLocked arms the sentinel watch if this session lacks it,
// and otherwise goes on to authentication and readiness.
func (k *core) sentinelOrReadyLocked() {
	s := &k.sess
	if s.sentinel {
		k.authOrReadyLocked()
		return
	}
	if !s.sentinelRunning {
		s.sentinelRunning = true
		conn, gen, sid := s.conn, s.gen, s.lastSessionID
		k.spawnLocked(func() {
			_, _, _, err := conn.ExistsW(sentinelPath)
			k.events.push(loopEvent{kind: evSentinel, gen: gen, err: err, sessionID: sid})
		})
	}
}

// sentinelDoneLocked handles the outcome of arming the sentinel watch. An
// outcome that belongs to an earlier session, or an error (the connection
// went, or is going), leaves the sentinel unarmed: it is armed again at
// once if the session is up, else on the next session event. After
// sentinelAttempts failures in one session the client goes on without it,
// waiting out rewatchWait after each reconnect.
func (k *core) sentinelDoneLocked(ev loopEvent) {
	s := &k.sess
	s.sentinelRunning = false
	switch {
	case ev.sessionID != s.lastSessionID:
	case ev.err == nil:
		s.sentinel = true
		s.gate.Arm(ev.sessionID)
	default:
		s.sentinelFailures++
		if s.sentinelFailures >= sentinelAttempts {
			k.log.Warn("cannot watch the sentinel node; reconnects will wait for watches a little longer",
				zap.String("path", sentinelPath), zap.Error(ev.err))
			s.sentinel = true // do not try again in this session
		}
	}
	if s.hasSession && !s.rewatching {
		k.sentinelOrReadyLocked()
	}
}
