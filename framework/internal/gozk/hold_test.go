package gozk

import (
	"bytes"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// watchingGate is a gate of session id, never armed, that has seen
// go-zookeeper granted a one-shot watch in it.
func watchingGate(id int64) *Gate {
	g := NewGate()
	sid := func() int64 { return id }
	g.session.Store(&sid)
	g.oneShotSession = id
	g.oneShot = map[string]uint8{"/watched": OneShotData}
	return g
}

// A connection that resumes a session in which go-zookeeper holds a one-shot
// watch holds a reply that records a zxid until SetWatches, though the
// client's own watch was never armed in that session.
func TestOneShotWatchHoldsRepliesBeforeTheSessionIsArmed(t *testing.T) {
	client, server, rewatched := dialPipe(t, watchingGate(7))
	sent := [][]byte{connectResponse(7, 4*time.Second), reply(2, 9, "exists: zxid 9")}
	go func() {
		for _, b := range sent {
			if _, err := server.Write(b); err != nil {
				return
			}
		}
	}()
	if got, err := readFrame(client); err != nil || !bytes.Equal(got, sent[0]) {
		t.Fatalf("connect response = %q, %v", got, err)
	}
	assertHeldUntilSetWatches(t, client, server, rewatched, sent[1])
}

// When SetWatches does not come within ReadHold on such a connection, what
// the gate saw of go-zookeeper's watches no longer holds the session's later
// connections: they would otherwise fail the same way until the session ends.
func TestHoldThatTimedOutDoesNotHoldTheNextConnection(t *testing.T) {
	g := watchingGate(7)
	client, server, _ := dialPipe(t, g)
	go func() {
		server.Write(connectResponse(7, 4*time.Second))
		server.Write(reply(2, 9, "exists: zxid 9"))
	}()
	if _, err := readFrame(client); err != nil {
		t.Fatal(err)
	}
	if got, err := readFrame(client); !errors.Is(err, errNoSetWatches) {
		t.Fatalf("read = %q, %v; want %v", got, err, errNoSetWatches)
	}
	client.Close()

	client, server, _ = dialPipe(t, g)
	sent := [][]byte{connectResponse(7, 4*time.Second), reply(3, 10, "exists: zxid 10")}
	go func() {
		for _, b := range sent {
			server.Write(b)
		}
	}()
	for i, want := range sent {
		got, err := readFrame(client)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("message %d on the next connection = %q, %v; want %q", i, got, err, want)
		}
	}
}

// A write that fails is a connection loss: go-zookeeper hands the error to
// the request it was writing, which retries it as one.
func TestFailedWriteIsAConnectionLoss(t *testing.T) {
	client, server, _ := dialPipe(t, NewGate())
	server.Close()
	_, err := client.Write(request(1, 4))
	if !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("Write on a broken connection = %v; want a match of %v", err, zk.ErrConnectionClosed)
	}
}

// assertHeldUntilSetWatches reads the next message off client, which must
// not come before go-zookeeper writes SetWatches, and must be want after it.
func assertHeldUntilSetWatches(t *testing.T, client, server net.Conn, rewatched <-chan struct{}, want []byte) {
	t.Helper()
	held := make(chan []byte, 1)
	go func() {
		got, _ := readFrame(client)
		held <- got
	}()
	select {
	case got := <-held:
		t.Fatalf("a reply with a zxid was delivered before SetWatches: %q", got)
	case <-time.After(50 * time.Millisecond): // no event to await: this is the hold itself
	}
	go server.Read(make([]byte, 64)) // the pipe delivers a write only to a reader
	if _, err := client.Write(request(4, opSetWatches)); err != nil {
		t.Fatal(err)
	}
	<-rewatched
	if got := <-held; !bytes.Equal(got, want) {
		t.Fatalf("held reply = %q, want %q", got, want)
	}
}
