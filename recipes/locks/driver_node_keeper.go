package locks

// NodeKeeper is implemented by drivers that look after each node they create
// until it is released, and so may learn that a node is gone before any watch
// would tell: PersistentTTLLockInternalsDriver keeps its nodes alive, and
// finds out when one has been deleted. When a driver implements it, a waiter
// whose node the driver gives up starts over with a new node, and a hold
// whose node the driver gives up closes its Lost channel.
type NodeKeeper interface {
	// NodeLost returns a channel that is closed once the driver has stopped
	// keeping the node at lockPath for a reason other than its release (the
	// node was found deleted, its client was closed, or it could not be kept
	// alive). For a node the driver does not keep, it returns a closed channel.
	NodeLost(lockPath string) <-chan struct{}
}
