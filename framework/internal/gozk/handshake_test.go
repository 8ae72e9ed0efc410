package gozk

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// A server that accepts a connection and never answers its connect request
// (ZooKeeper 3.8 can, while it starts) is given up after half the session
// timeout, and go-zookeeper dials again, instead of waiting ten times its
// receive timeout (20 s for a 3 s session).
func TestUnansweredHandshakeIsGivenUp(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan time.Time, 8)
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- time.Now()
			go func() { io.Copy(io.Discard, nc); nc.Close() }() // reads, never answers
		}
	}()
	t.Cleanup(func() { ln.Close() })
	const session = 3 * time.Second
	g := NewGateHooks(Hooks{})
	conn, events, err := zk.Connect([]string{ln.Addr().String()}, session, zk.WithLogger(quiet{}),
		zk.WithDialer(g.Dialer(net.DialTimeout, func() {})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		g.Shut()
		for range events {
		}
	})
	first := <-accepted
	// Given up after session/2, then go-zookeeper's pause before it dials
	// the one server again (a second): the bound leaves that much room.
	const bound = session/2 + 3*time.Second
	select {
	case next := <-accepted:
		if gap := next.Sub(first); gap < session/2 {
			t.Fatalf("dialed again %v after the first connection, before the handshake's bound of %v", gap, session/2)
		}
	case <-time.After(bound):
		t.Fatalf("no second connection within %v of the first: the unanswered handshake was not given up", bound)
	}
}
