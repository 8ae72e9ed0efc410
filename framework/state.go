package framework

import "fmt"

// ConnectionState is the client's view of its connection and session, with
// Curator's meanings. The zero value means no connection has been made yet.
type ConnectionState int

const (
	// Connected is reported once, for the first successful connection.
	Connected ConnectionState = iota + 1
	// Suspended is reported when the connection is lost; the session may still be alive.
	Suspended
	// Reconnected is reported for every successful connection after the first.
	Reconnected
	// Lost is reported when the session is known (or, after a suspension as long as the
	// session timeout, assumed) to have expired; its ephemeral nodes and watches are gone.
	Lost
	// ReadOnly is Curator's state for a read-only server; go-zookeeper never connects in
	// read-only mode, so the client does not report it today.
	ReadOnly
)

// String returns Curator's name for the state: CONNECTED, SUSPENDED, RECONNECTED, LOST or READ_ONLY.
func (s ConnectionState) String() string {
	switch s {
	case Connected:
		return "CONNECTED"
	case Suspended:
		return "SUSPENDED"
	case Reconnected:
		return "RECONNECTED"
	case Lost:
		return "LOST"
	case ReadOnly:
		return "READ_ONLY"
	}
	return fmt.Sprintf("ConnectionState(%d)", int(s))
}

// IsConnected reports whether the state means the client can talk to the ensemble
// (Connected, Reconnected or ReadOnly), as Curator's ConnectionState.isConnected.
func (s ConnectionState) IsConnected() bool {
	return s == Connected || s == Reconnected || s == ReadOnly
}

// ErrorPolicy decides which connection states recipes treat as the loss of what they
// hold (a lock, a leadership), as Curator's ConnectionStateErrorPolicy.
type ErrorPolicy int

const (
	// StandardErrorPolicy treats Suspended and Lost as errors (Curator's default).
	StandardErrorPolicy ErrorPolicy = iota
	// SessionErrorPolicy treats only Lost as an error: holdings survive a suspension
	// that ends before the session expires.
	SessionErrorPolicy
)

// IsErrorState reports whether s counts as an error under the policy.
func (p ErrorPolicy) IsErrorState(s ConnectionState) bool {
	if p == SessionErrorPolicy {
		return s == Lost
	}
	return s == Suspended || s == Lost
}

// String returns the policy's name.
func (p ErrorPolicy) String() string {
	switch p {
	case StandardErrorPolicy:
		return "StandardErrorPolicy"
	case SessionErrorPolicy:
		return "SessionErrorPolicy"
	}
	return fmt.Sprintf("ErrorPolicy(%d)", int(p))
}
