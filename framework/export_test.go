package framework

import "github.com/go-zookeeper/zk"

// InjectSessionEvents feeds session events into c's state machine as if
// go-zookeeper had reported them on the current connection, in order, so
// that tests can reach event orders that the network produces only rarely.
func InjectSessionEvents(c *Client, states ...zk.State) {
	k := c.core
	k.mu.Lock()
	gen := k.sess.gen
	k.mu.Unlock()
	for _, st := range states {
		k.events.push(loopEvent{kind: evZK, gen: gen, zkEvent: zk.Event{Type: zk.EventSession, State: st}})
	}
}
