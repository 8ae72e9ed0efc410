package framework

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework/internal/gozk"
	"github.com/zkcurator/zkcurator/internal/clock"
)

// session is the connection state the event loop maintains; guarded by core.mu.
type session struct {
	conn          *zk.Conn
	gate          *gozk.Gate      // shared with conn's connections (rewatch.go)
	cancelDial    func()          // ends conn's dials, lookups and handshakes under way
	gen           uint64          // increments each time conn is replaced
	state         ConnectionState // the last state published to listeners
	stateSince    time.Time       // when state was published; zero once its time is counted
	lastSessionID int64
	negotiated    time.Duration // the session timeout the server granted, once known
	suspendTimer  clock.Timer   // the simulated expiry, or after Lost the retry of a failed connect; nil once fired or stopped
	suspendEpoch  uint64        // increments each time suspendTimer is stopped, so that a stopped timer's event is ignored
	readiness     readiness     // when conn's session may serve operations
	current       *sessionRec   // the session values hand out; see session.go
}

type loopEventKind int

const (
	evZK             loopEventKind = iota // a session event from go-zookeeper
	evNegotiated                          // the server granted a session timeout
	evAuthDone                            // WithAuth entries were sent on a connection
	evSuspendExpired                      // Suspended for as long as the session timeout
	evReconnect                           // retry replacing the connection
	evRewatched                           // go-zookeeper wrote SetWatches, or the wait for it ended
	evSentinel                            // the sentinel watch was armed, or failed
)

// loopEvent is one input of the state machine, tagged with the connection generation
// it belongs to so that events of a replaced connection are ignored.
type loopEvent struct {
	kind      loopEventKind
	gen       uint64
	zkEvent   zk.Event
	timeout   time.Duration
	applied   int
	err       error
	epoch     uint64
	timedOut  bool
	sessionID int64
}

// connectLocked opens a new go-zookeeper connection (a new session) as the next
// generation. go-zookeeper starts its goroutines at once; its events are fed into our
// own queue by a callback that never blocks. k.mu must be held.
func (k *core) connectLocked() error {
	gen := k.sess.gen + 1
	dctx, cancel := context.WithCancel(context.Background())
	d := &connDialer{ctx: dctx, base: k.cfg.dialer, tls: k.cfg.tlsDialer, resolve: k.resolver}
	gate := k.watches.newGate()
	zkLog := k.log.Sugar()
	conn, ec, err := zk.Connect(k.cfg.servers, k.cfg.sessionTimeout,
		zk.WithEventCallback(func(ev zk.Event) {
			if ev.Type == zk.EventSession && ev.State == zk.StateDisconnected {
				k.losses.Add(1) // here, before go-zookeeper reconnects: see ConnectionLosses
			}
			if ev.Type == zk.EventSession {
				k.events.Push(loopEvent{kind: evZK, gen: gen, zkEvent: ev})
			} else if k.nodeListeners.Len() > 0 {
				k.nodeEvents.Push(ev)
			}
		}),
		zk.WithLogger(gozk.Logger{
			Print: func(format string, args ...any) { zkLog.Debugf("zk: "+format, args...) },
			Negotiated: func(d time.Duration) {
				k.events.Push(loopEvent{kind: evNegotiated, gen: gen, timeout: d})
			},
		}),
		zk.WithHostProvider(&hostProvider{}),
		zk.WithDialer(gate.Dialer(d.dial, func() {
			k.events.Push(loopEvent{kind: evRewatched, gen: gen})
		})),
	)
	if err != nil {
		cancel()
		return wrapf(err, "connect to %s", strings.Join(k.cfg.servers, ","))
	}
	// go-zookeeper closes ec when its goroutines are done; Close waits for that.
	k.spawnLocked(func() {
		for range ec {
		}
	})
	gate.SetConn(conn)
	k.sess.conn = conn
	k.sess.gen = gen
	k.sess.gate = gate
	k.sess.cancelDial = cancel
	k.sess.readiness.newConnection(gen)
	return nil
}

// eventLoop runs the state machine until Close.
func (k *core) eventLoop() {
	for {
		select {
		case <-k.loopStop:
			return
		case <-k.events.Ready():
			for _, ev := range k.events.TakeAll() {
				k.handle(ev)
			}
		}
	}
}

func (k *core) handle(ev loopEvent) {
	k.mu.Lock()
	defer k.mu.Unlock()
	s := &k.sess
	if ev.gen != s.gen || k.connClosed {
		return
	}
	switch ev.kind {
	case evZK:
		k.handleZKLocked(ev.zkEvent)
	case evNegotiated:
		s.negotiated = ev.timeout
	case evAuthDone:
		if ev.err != nil && !isConnectionError(ev.err) && ev.applied < len(k.cfg.auth) {
			k.reportError(wrapf(ev.err, "authentication with scheme %q rejected", k.cfg.auth[ev.applied].scheme))
		}
		k.stepLocked(s.readiness.authDone(ev.applied, ev.err))
	case evSuspendExpired:
		if ev.epoch != s.suspendEpoch {
			return // stopped since it fired
		}
		s.suspendTimer = nil
		if s.state == Suspended && !k.closed {
			k.log.Warn("suspended for the session timeout: the session is considered lost; starting a new one",
				zap.Duration("sessionTimeout", k.sessionTimeoutLocked()), zap.Int64("sessionID", s.lastSessionID))
			k.endSessionLocked() // given up: Done closes before LOST is reported
			k.publishLocked(Lost)
			k.replaceConnLocked()
		}
	case evReconnect:
		s.suspendTimer = nil // it held the reconnect timer, which has fired
		if !k.closed {
			k.replaceConnLocked()
		}
	case evRewatched:
		k.stepLocked(s.readiness.rewatched(ev.timedOut, ev.epoch))
	case evSentinel:
		k.sentinelDoneLocked(ev)
	}
}

func (k *core) handleZKLocked(ev zk.Event) {
	s := &k.sess
	switch ev.State {
	case zk.StateHasSession:
		k.stopSuspendTimerLocked() // the server has spoken; a later loss arms it anew
		sid := s.conn.SessionID()
		k.advanceSessionLocked() // a new session has ended the old one: Done closes before LOST is reported
		if s.lastSessionID != 0 && sid != s.lastSessionID && s.state != 0 && s.state != Lost {
			// go-zookeeper opened a new session by itself: the old one expired.
			k.log.Warn("session replaced by a new one: the old session expired",
				zap.Int64("oldSessionID", s.lastSessionID), zap.Int64("sessionID", sid))
			k.publishLocked(Lost)
		}
		sameSession := sid == s.lastSessionID
		s.lastSessionID = sid
		k.stepLocked(s.readiness.sessionUp(sameSession))
	case zk.StateDisconnected:
		s.readiness.sessionDown()
		if s.state.IsConnected() {
			k.publishLocked(Suspended)
		}
		k.armSuspendTimerLocked()
	case zk.StateExpired:
		s.readiness.sessionDown()
		k.stopSuspendTimerLocked()
		k.advanceSessionLocked() // go-zookeeper has dropped the expired id: Done closes before LOST is reported
		switch s.state {
		case 0:
			// Nothing ran on that session and nothing was reported yet:
			// Curator reports no LOST before the first CONNECTED.
			k.log.Info("session expired before the client was first connected", zap.Int64("sessionID", s.lastSessionID))
		case Lost:
		default:
			k.log.Warn("session expired", zap.Int64("sessionID", s.lastSessionID))
			k.publishLocked(Lost)
		}
	case zk.StateAuthFailed:
		k.log.Error("authentication failed", zap.String("server", ev.Server))
		k.reportError(wrapf(zk.ErrAuthFailed, "server %s", ev.Server))
	}
}

// stepLocked takes the step towards readiness that a transition of
// readiness.go asked for.
func (k *core) stepLocked(step readyStep) {
	s := &k.sess
	switch step {
	case stepArmSentinel:
		k.armSentinelLocked()
	case stepSendAuth:
		conn, gen, from := s.conn, s.gen, s.readiness.authApplied
		k.spawnLocked(func() { k.applyAuth(conn, gen, from) })
	case stepReady:
		k.stopSuspendTimerLocked()
		switch {
		case s.state == 0:
			k.publishLocked(Connected)
		case !s.state.IsConnected():
			k.publishLocked(Reconnected)
		}
	}
}

// publishLocked reports st to listeners, unless Close has begun: from then on the
// state stays as it was and nothing is reported (see Close).
func (k *core) publishLocked(st ConnectionState) {
	if k.closed {
		k.log.Debug("connection state not reported: the client is closing", zap.Stringer("state", st))
		return
	}
	k.endStateLocked()
	k.sess.state, k.sess.stateSince = st, time.Now()
	k.met.transitions[st].Add(1)
	k.log.Info("connection state changed", zap.Stringer("state", st))
	k.notices.Push(st)
}

// armSuspendTimerLocked starts the simulated session expiry (Lost after the
// negotiated session timeout times the configured percent, since during a
// partition the server's verdict cannot reach us) if the client is Suspended
// and it is not running yet. It counts from the first connection loss since the
// server last confirmed the session: HasSession stops it, as the server's own
// timer starts again then, and further losses leave it running.
func (k *core) armSuspendTimerLocked() {
	s := &k.sess
	if s.state != Suspended || s.suspendTimer != nil || k.cfg.simulatedPercent == 0 {
		return
	}
	d := k.sessionTimeoutLocked() * time.Duration(k.cfg.simulatedPercent) / 100
	gen, epoch := s.gen, s.suspendEpoch
	s.suspendTimer = k.cfg.clock.AfterFunc(d, func() {
		k.events.Push(loopEvent{kind: evSuspendExpired, gen: gen, epoch: epoch})
	})
}

func (k *core) stopSuspendTimerLocked() {
	s := &k.sess
	s.suspendEpoch++
	if s.suspendTimer != nil {
		s.suspendTimer.Stop()
		s.suspendTimer = nil
	}
}

// replaceConnLocked abandons the current session after a simulated expiry: the old
// connection is closed, so it can never resume the session we declared lost, and a
// new connection (new session) takes its place.
func (k *core) replaceConnLocked() {
	s := &k.sess
	if s.gate != nil {
		s.gate.Retire() // no new connection resumes the old session
	}
	if old, gate, cancel := s.conn, s.gate, s.cancelDial; old != nil {
		k.spawnLocked(func() { closeConn(old, gate, cancel) })
	}
	s.readiness.notReady()
	k.endSessionLocked() // given up, if not already
	if err := k.connectLocked(); err != nil {
		k.log.Error("cannot open a new connection; retrying in 1s", zap.Error(err))
		s.gen++ // ignore the old connection's events
		gen := s.gen
		t := k.cfg.clock.AfterFunc(time.Second, func() { k.events.Push(loopEvent{kind: evReconnect, gen: gen}) })
		s.suspendTimer = t
	}
}

// closeConn ends the dials, lookups and handshakes of a go-zookeeper connection
// under way, closes it (which ends its session) and then the sockets its gate still
// holds, so that a silent server cannot hold the close for a handshake's deadline
// or go-zookeeper's read deadline.
func closeConn(conn *zk.Conn, gate *gozk.Gate, cancelDial func()) {
	if cancelDial != nil {
		cancelDial()
	}
	conn.Close()
	if gate != nil {
		gate.Shut()
	}
}

// endStateLocked adds the time spent in the current state to its metric,
// once.
func (k *core) endStateLocked() {
	if s := &k.sess; s.state != 0 && !s.stateSince.IsZero() {
		k.met.timeIn[s.state].Add(Since(s.stateSince))
		s.stateSince = time.Time{}
	}
}

func (k *core) sessionTimeoutLocked() time.Duration {
	if k.sess.negotiated > 0 {
		return k.sess.negotiated
	}
	return k.cfg.sessionTimeout
}

// waitReady waits for a usable connection. With a positive timeout it gives up after
// it with an error matching ErrNotConnected and zk.ErrConnectionClosed (a connection
// loss, which the retry policy may retry), as Curator does after its connection
// timeout; when ctx ends first the error matches ErrNotConnected and ctx's error.
// Background work passes background=true to keep waiting while Close drains it.
func (k *core) waitReady(ctx context.Context, timeout time.Duration, background bool) (*zk.Conn, error) {
	closing := k.closing
	if background {
		closing = nil
	}
	var began time.Time
	var expired <-chan time.Time // armed only once we have to wait
	for {
		k.mu.Lock()
		closed, started, ready, ch, conn := k.closed, k.started, k.sess.readiness.ready, k.sess.readiness.readyCh, k.sess.conn
		k.mu.Unlock()
		switch {
		case closed && !background:
			return nil, ErrClosed
		case !started:
			return nil, ErrNotStarted
		}
		if err := k.cfg.sasl.failure(); err != nil {
			return nil, err
		}
		if ready {
			return conn, nil
		}
		if began.IsZero() {
			began = time.Now()
			if timeout > 0 {
				t := time.NewTimer(timeout)
				defer t.Stop()
				expired = t.C
			}
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, k.notConnected(time.Since(began), ctx.Err())
		case <-closing:
			return nil, ErrClosed
		case <-k.cfg.sasl.failedCh():
		case <-expired:
			return nil, k.notConnected(timeout, zk.ErrConnectionClosed)
		}
	}
}

// notConnected is the error of a wait for a connection that ended after waited
// because of cause.
func (k *core) notConnected(waited time.Duration, cause error) error {
	if unresolvable := k.resolver.unresolvable(); unresolvable != nil {
		return fmt.Errorf("%w: waited %v for a connection to %s: %w: %w",
			ErrNotConnected, waited.Round(time.Millisecond), strings.Join(k.cfg.servers, ","), unresolvable, cause)
	}
	return fmt.Errorf("%w: waited %v for a connection to %s: %w",
		ErrNotConnected, waited.Round(time.Millisecond), strings.Join(k.cfg.servers, ","), cause)
}
