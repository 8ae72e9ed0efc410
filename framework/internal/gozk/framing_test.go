package gozk

import (
	"bytes"
	"encoding/binary"
	"sync"
	"testing"
	"time"
)

// connectResponse is a handshake reply that grants session id with a
// timeout.
func connectResponse(id int64, timeout time.Duration) []byte {
	body := binary.BigEndian.AppendUint32(nil, 0) // protocol version
	body = binary.BigEndian.AppendUint32(body, uint32(timeout.Milliseconds()))
	body = binary.BigEndian.AppendUint64(body, uint64(id))
	body = binary.BigEndian.AppendUint32(body, 16)
	body = append(body, make([]byte, 16)...)
	body = append(body, 0) // not read-only
	return append(frame(body), body...)
}

func notification(path string) []byte {
	body := binary.BigEndian.AppendUint32(nil, ^uint32(0)) // xid -1
	body = binary.BigEndian.AppendUint64(body, ^uint64(0))
	body = binary.BigEndian.AppendUint32(body, 0)
	body = binary.BigEndian.AppendUint32(body, 3) // NodeDataChanged
	body = binary.BigEndian.AppendUint32(body, 3) // SyncConnected
	body = binary.BigEndian.AppendUint32(body, uint32(len(path)))
	body = append(body, path...)
	return append(frame(body), body...)
}

// The server's messages, however the bytes arrive, reach go-zookeeper
// exactly as sent, less the replies to our requests, which reach their
// requests; notifications reach Notify first.
func TestFramingTakesOnlyOurReplies(t *testing.T) {
	for _, chunk := range []int{1, 3, 7, 1 << 16} {
		var mu sync.Mutex
		var notes []string
		g := NewGateHooks(Hooks{Notify: func(n Notification) {
			mu.Lock()
			notes = append(notes, n.Path)
			mu.Unlock()
		}})
		client, server, _ := dialPipe(t, g)
		hello := connectResponse(7, 4*time.Second)
		go server.Write(hello)
		if got, err := readFrame(client); err != nil || !bytes.Equal(got, hello) {
			t.Fatalf("handshake %q, %v", got, err)
		}
		l, err := g.Link()
		if err != nil || l.SessionID() != 7 {
			t.Fatalf("Link after the handshake: %v, %v", l, err)
		}
		got := make(chan []byte, 4)
		var ours []int32
		for range 2 {
			xid, ok := l.register(func(r Reply, err error) {
				if err != nil {
					t.Errorf("our request: %v", err)
				}
				got <- r.Body
			})
			if !ok {
				t.Fatal("register on a live link failed")
			}
			ours = append(ours, xid)
		}
		sent := [][]byte{reply(1, 5, "theirs 1"), reply(ours[1], 5, "ours 2"), notification("/n"),
			reply(ours[0], 6, "ours 1"), reply(2, 6, "theirs 2")}
		go func() {
			stream := bytes.Join(sent, nil)
			for len(stream) > 0 {
				n := min(chunk, len(stream))
				if _, err := server.Write(stream[:n]); err != nil {
					return
				}
				stream = stream[n:]
			}
		}()
		for _, want := range [][]byte{sent[0], sent[2], sent[4]} {
			if msg, err := readFrame(client); err != nil || !bytes.Equal(msg, want) {
				t.Fatalf("chunks of %d: go-zookeeper read %q, %v; want %q", chunk, msg, err, want)
			}
		}
		for _, want := range []string{"ours 2", "ours 1"} {
			if body := <-got; string(body) != want {
				t.Fatalf("chunks of %d: our reply %q, want %q", chunk, body, want)
			}
		}
		mu.Lock()
		if len(notes) != 1 || notes[0] != "/n" {
			t.Fatalf("Notify got %q", notes)
		}
		mu.Unlock()
		client.Close()
		server.Close()
	}
}

// Replies go to their requests by xid, whatever the order, and requests
// pending when the connection closes fail with a connection loss.
func TestPendingFailOnClose(t *testing.T) {
	g := NewGate()
	client, server, _ := dialPipe(t, g)
	go server.Write(connectResponse(7, 4*time.Second))
	if _, err := readFrame(client); err != nil {
		t.Fatal(err)
	}
	l, _ := g.Link()
	failed := make(chan error, 1)
	if _, ok := l.register(func(_ Reply, err error) { failed <- err }); !ok {
		t.Fatal("register failed")
	}
	client.Close()
	if err := <-failed; !isConnectionLoss(err) {
		t.Fatalf("pending request after Close: %v", err)
	}
	if _, err := g.Link(); err == nil {
		t.Fatal("a closed connection is still the Gate's Link")
	}
}

// Own xids stay in their range and skip xids in flight.
func TestOwnXids(t *testing.T) {
	g := NewGate()
	busy := map[int32]bool{ownXidTop - 1: true}
	var got []int32
	for range 3 {
		got = append(got, g.takeXid(func(x int32) bool { return busy[x] }))
	}
	if want := []int32{ownXidTop, ownXidTop - 2, ownXidTop - 3}; !slicesEqual(got, want) {
		t.Fatalf("xids %v, want %v", got, want)
	}
	g.xids.Store(ownXidSpan - 1)
	if x := g.takeXid(func(int32) bool { return false }); x != -1<<31+1 || !isOwnXid(x) {
		t.Fatalf("the last xid of the range = %d", x)
	}
	if x := g.takeXid(func(int32) bool { return false }); x != ownXidTop {
		t.Fatalf("after the range, %d, want %d", x, ownXidTop)
	}
	for _, x := range []int32{-1, -2, -4, -8, 0, 1, 1<<31 - 1, -1 << 31} {
		if isOwnXid(x) {
			t.Errorf("xid %d counted as ours", x)
		}
	}
}

func slicesEqual(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
