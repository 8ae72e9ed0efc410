package framework

// Listen registers fn to be told of every connection state change, as Curator's
// ConnectionStateListener. Calls happen in order on one goroutine of the client (never
// on go-zookeeper's), no change is dropped however slow fn is, and a slow fn delays only
// later calls to listeners, not the connection or operations. The returned stop is
// idempotent and may be called from within fn; once it returns no new call to fn
// starts (a call already under way is not waited for). fn must not call Close.
func (c *Client) Listen(fn func(ConnectionState)) (stop func()) {
	return c.core.listeners.Add(fn) // a nil fn registers nothing
}

// dispatch delivers queued state changes to the listeners until stop is closed.
func (k *core) dispatch(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-k.notices.Ready():
			for _, st := range k.notices.TakeAll() {
				select {
				case <-stop:
					return
				default:
				}
				k.listeners.Deliver(st)
			}
		}
	}
}
