package gozk

import (
	"context"
	"encoding/binary"
	"time"
)

// established starts the Link of a connection whose connect response has
// been read, and its Exchange; go-zookeeper's requests wait for it.
func (c *conn) established() {
	r := c.handshake[4:]
	if len(r) < connectResponseMin {
		close(c.released)
		return
	}
	timeout := time.Duration(int32(binary.BigEndian.Uint32(r[4:8]))) * time.Millisecond
	session := int64(binary.BigEndian.Uint64(r[8:16]))
	if session == 0 { // expired: go-zookeeper starts over
		close(c.released)
		return
	}
	l := newLink(c, session, timeout)
	c.link.Store(l)
	select {
	case <-c.closed: // closed before it was a Link: nothing is pending on it
		l.end()
	default:
	}
	c.gate.linkUp(l)
	ex := c.gate.hooks.Exchange
	if ex == nil {
		close(c.released)
		return
	}
	go c.exchange(ex, l)
}

// exchange runs ex on l, then lets go-zookeeper's requests go out; an error
// ends the connection.
func (c *conn) exchange(ex Exchange, l *Link) {
	defer close(c.released)
	ctx, cancel := context.WithTimeout(context.Background(), max(l.timeout/3, time.Millisecond))
	defer cancel()
	go func() { // the connection's end ends ctx
		select {
		case <-l.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	if err := ex(ctx, l); err != nil {
		c.Close()
	}
}
