package cache

import "fmt"

// WatchMode is how a cache learns of the changes of its tree.
type WatchMode int

const (
	// RecursiveWatch: one persistent recursive watch on the root (ZooKeeper
	// 3.6's addWatch; a persistent watch of the root alone for a single node
	// cache), set again by the client on every new connection and session.
	// The cache reads nodes without arming watches and keeps no record of
	// watches per node.
	RecursiveWatch WatchMode = iota + 1
	// OneShotWatches: a data watch and a child watch armed on each node
	// held, each armed again when it fires.
	OneShotWatches
)

// String names the mode ("PERSISTENT_RECURSIVE", "ONE_SHOT").
func (m WatchMode) String() string {
	switch m {
	case RecursiveWatch:
		return "PERSISTENT_RECURSIVE"
	case OneShotWatches:
		return "ONE_SHOT"
	}
	return fmt.Sprintf("WatchMode(%d)", int(m))
}
