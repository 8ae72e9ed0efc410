package framework

import "time"

// After a reconnect within the session, go-zookeeper sets the session's
// watches again from the zxid it last saw (see internal/gozk for why that
// needs care). The client runs no operation on a reconnected connection
// until go-zookeeper has written its SetWatches request (readiness.go), and
// so that there always is one, it keeps a watch of its own on sentinelPath,
// whose data never changes. A request already queued inside go-zookeeper
// when the connection dropped still goes out first on the next one, so the
// connection itself also holds back replies until SetWatches is written
// (gozk.Gate).
const (
	sentinelPath = "/zookeeper"
	// rewatchWait bounds the wait for a SetWatches request, should none come.
	rewatchWait = time.Second
	// sentinelAttempts bounds the failures to arm the sentinel in a session.
	sentinelAttempts = 3
)

// armSentinelLocked watches sentinelPath in the current session, reporting
// the outcome to sentinelDoneLocked.
func (k *core) armSentinelLocked() {
	s := &k.sess
	conn, gen, sid := s.conn, s.gen, s.lastSessionID
	k.spawnLocked(func() {
		_, _, _, err := conn.ExistsW(sentinelPath)
		k.events.Push(loopEvent{kind: evSentinel, gen: gen, err: err, sessionID: sid})
	})
}

// sentinelDoneLocked handles the outcome of arming the sentinel watch: once
// it is armed in the current session, the gate holds back the replies of a
// connection that resumes the session until go-zookeeper has written
// SetWatches.
func (k *core) sentinelDoneLocked(ev loopEvent) {
	s := &k.sess
	current := ev.sessionID == s.lastSessionID
	if current && ev.err == nil {
		s.gate.Arm(ev.sessionID)
	}
	k.stepLocked(s.readiness.sentinelDone(current, ev.err))
}
