package framework

// Session is one ZooKeeper session of a client, as etcd's concurrency.Session:
// its id and a channel closed once the session has ended for the client (the
// server expired it, the client gave it up, a new session replaced it, or the
// client closed). A value is cheap to copy and compare by ID; the zero value
// is a session that has already ended.
type Session struct {
	id  int64
	rec *sessionRec // nil for a session that was not the client's current one when the value was made
}

// sessionRec is what every value of the client's current session shares: one
// channel per session, closed by advanceSessionLocked once the client has
// moved on from it.
type sessionRec struct {
	k    *core
	id   int64
	done chan struct{}
}

// ended is the Done channel of every value made for a session already ended.
var ended = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()

// ID returns the session's id, as SessionID and a node's EphemeralOwner
// report it; 0 for no session.
func (s Session) ID() int64 { return s.id }

// Done returns a channel closed once the session has ended for the client:
// expired by the server, given up by the client (simulated expiry), replaced
// by a new session, or closed with the client. A mere reconnect within the
// session leaves it open.
func (s Session) Done() <-chan struct{} {
	if s.rec == nil {
		return ended
	}
	return s.rec.done
}

// IsCurrent reports whether s is the client's current session: its id is the
// client's SessionID and the client has not closed. Once it reports false it
// never reports true again, and Done is closed.
func (s Session) IsCurrent() bool {
	if s.rec == nil {
		return false
	}
	k := s.rec.k
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.advanceSessionLocked() == s.rec
}

// Session returns the client's current session; its ID is SessionID's. Before
// the client has a session, and once it has closed, the value is already done.
func (c *Client) Session() Session {
	k := c.core
	k.mu.Lock()
	defer k.mu.Unlock()
	rec := k.advanceSessionLocked()
	if rec == nil {
		return Session{id: k.connSessionIDLocked()}
	}
	return Session{id: rec.id, rec: rec}
}

// SessionOf returns the session with the given id, such as a node's
// EphemeralOwner: the client's current session when id is its id, otherwise
// a session already done.
func (c *Client) SessionOf(id int64) Session {
	k := c.core
	k.mu.Lock()
	defer k.mu.Unlock()
	if rec := k.advanceSessionLocked(); rec != nil && rec.id == id {
		return Session{id: id, rec: rec}
	}
	return Session{id: id}
}

// connSessionIDLocked is go-zookeeper's session id of the current connection,
// which it changes (to 0 on expiry, to the new id on a new session) before
// the event loop hears of the change; 0 before Start. k.mu must be held.
func (k *core) connSessionIDLocked() int64 {
	if k.sess.conn == nil {
		return 0
	}
	return k.sess.conn.SessionID()
}

// advanceSessionLocked returns the record of the client's current session,
// or nil when it has none or has closed its connection. When the connection's
// session is no longer the recorded one, the recorded one has ended: its Done
// closes and a record for the new session takes its place. The event loop
// calls it wherever the session may have changed, so that Done closes without
// waiting for a caller; k.mu must be held.
func (k *core) advanceSessionLocked() *sessionRec {
	id := k.connSessionIDLocked()
	if k.connClosed {
		id = 0
	}
	cur := k.sess.current
	if cur != nil && cur.id == id {
		return cur
	}
	k.endSessionLocked()
	if id == 0 {
		return nil
	}
	k.sess.current = &sessionRec{k: k, id: id, done: make(chan struct{})}
	return k.sess.current
}

// endSessionLocked closes the recorded session's Done, which the client has
// moved on from or given up. k.mu must be held.
func (k *core) endSessionLocked() {
	if cur := k.sess.current; cur != nil {
		close(cur.done)
		k.sess.current = nil
	}
}
