package cache

import (
	"fmt"

	"github.com/go-zookeeper/zk"
)

// EventType is the kind of an Event.
type EventType int

const (
	// NodeAdded: a node the cache did not hold is now in it.
	NodeAdded EventType = iota + 1
	// NodeUpdated: a node the cache holds has new data (a new data version).
	NodeUpdated
	// NodeRemoved: a node the cache held is gone; Node is what it held last.
	NodeRemoved
	// Initialized: the first full load after Start is complete.
	Initialized
	// ConnectionSuspended: the connection is down; the cache may be stale.
	ConnectionSuspended
	// ConnectionReconnected: the connection is back (in the same session or
	// a new one); the cache reads again what it holds and reports the
	// differences.
	ConnectionReconnected
	// ConnectionLost: the session is gone.
	ConnectionLost
)

// String names the event type as Curator does ("NODE_ADDED", ...).
func (t EventType) String() string {
	switch t {
	case NodeAdded:
		return "NODE_ADDED"
	case NodeUpdated:
		return "NODE_UPDATED"
	case NodeRemoved:
		return "NODE_REMOVED"
	case Initialized:
		return "INITIALIZED"
	case ConnectionSuspended:
		return "CONNECTION_SUSPENDED"
	case ConnectionReconnected:
		return "CONNECTION_RECONNECTED"
	case ConnectionLost:
		return "CONNECTION_LOST"
	}
	return fmt.Sprintf("EventType(%d)", int(t))
}

// Event is one change of a cache, or of its connection.
type Event struct {
	Type EventType
	// Node is the node added, updated or removed (as the cache held it
	// last); zero for the other types.
	Node Node
	// Old is, for NodeUpdated, the node as this channel reported it last
	// (its previous data); zero for the other types.
	Old Node
}

// Node is a node as a cache holds it.
type Node struct {
	Path string
	Data []byte // nil when the cache keeps no data (WithoutData)
	Stat zk.Stat
}

// String is the event type and the node's path and data version.
func (e Event) String() string {
	if e.Node.Path == "" {
		return e.Type.String()
	}
	return fmt.Sprintf("%s %s (version %d)", e.Type, e.Node.Path, e.Node.Stat.Version)
}
