package gozk

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(stopShared{m}) }

type stopShared struct{ m *testing.M }

func (s stopShared) Run() int {
	code := s.m.Run()
	if shared.srv != nil {
		shared.srv.Close()
	}
	return code
}

// frame is a length-prefixed message as ZooKeeper sends it.
func frame(body []byte) []byte {
	return binary.BigEndian.AppendUint32(nil, uint32(len(body))) // then the body
}

func reply(xid int32, zxid int64, payload string) []byte {
	body := binary.BigEndian.AppendUint32(nil, uint32(xid))
	body = binary.BigEndian.AppendUint64(body, uint64(zxid))
	body = binary.BigEndian.AppendUint32(body, 0)
	body = append(body, payload...)
	return append(frame(body), body...)
}

func request(xid, opcode int32) []byte {
	body := binary.BigEndian.AppendUint32(nil, uint32(xid))
	body = binary.BigEndian.AppendUint32(body, uint32(opcode))
	return append(frame(body), body...)
}

// readFrame reads one message the way go-zookeeper does: the length, then
// exactly the body.
func readFrame(r io.Reader) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	body := make([]byte, binary.BigEndian.Uint32(n[:]))
	_, err := io.ReadFull(r, body)
	return append(n[:], body...), err
}

// dialPipe returns a connection through g whose other end is server, and
// a channel that is closed when the connection reports SetWatches.
func dialPipe(t *testing.T, g *Gate) (client net.Conn, server net.Conn, rewatched chan struct{}) {
	t.Helper()
	c, s := net.Pipe()
	t.Cleanup(func() { c.Close(); s.Close() })
	rewatched = make(chan struct{})
	dial := func(string, string, time.Duration) (net.Conn, error) { return c, nil }
	client, err := g.Dialer(dial, func() { close(rewatched) })("tcp", "pipe", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return client, s, rewatched
}

func armedGate(id int64) *Gate {
	g := NewGate()
	sid := func() int64 { return id }
	g.session.Store(&sid)
	g.Arm(id)
	return g
}

// On a connection that resumes the armed session, replies that record no
// zxid pass at once; the first that records one waits for SetWatches, and
// every byte arrives as sent.
func TestReplyWithZxidWaitsForSetWatches(t *testing.T) {
	client, server, rewatched := dialPipe(t, armedGate(7))
	sent := [][]byte{
		reply(0, 0, "connect response"), // the handshake: any bytes
		reply(1, 0, "auth"),
		reply(-2, 0, ""),                 // ping
		reply(-1, 0, "/watched"),         // watch event
		reply(2, 9, "exists: zxid 9"),    // must wait
		reply(3, 10, "getData: zxid 10"), // after it
	}
	go func() {
		for _, b := range sent {
			if _, err := server.Write(b); err != nil {
				return
			}
		}
	}()
	for i := range 4 {
		got, err := readFrame(client)
		if err != nil || !bytes.Equal(got, sent[i]) {
			t.Fatalf("message %d = %q, %v; want %q", i, got, err, sent[i])
		}
	}
	assertHeldUntilSetWatches(t, client, server, rewatched, sent[4])
	if got, err := readFrame(client); err != nil || !bytes.Equal(got, sent[5]) {
		t.Fatalf("next reply = %q, %v; want %q", got, err, sent[5])
	}
}

// A connection in another session than the armed one expects no
// SetWatches: nothing is held.
func TestOtherSessionPassesEverything(t *testing.T) {
	g := armedGate(7)
	g.Arm(8)
	client, server, _ := dialPipe(t, g)
	sent := [][]byte{reply(0, 0, "connect response"), reply(1, 5, "create: zxid 5")}
	go func() {
		for _, b := range sent {
			server.Write(b)
		}
	}()
	for i, want := range sent {
		if got, err := readFrame(client); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("message %d = %q, %v; want %q", i, got, err, want)
		}
	}
}

// A retired gate never dials.
func TestRetiredGateRefusesToDial(t *testing.T) {
	g := armedGate(7)
	g.Retire()
	dial := func(string, string, time.Duration) (net.Conn, error) {
		t.Error("a retired gate dialed")
		return nil, errors.New("refused")
	}
	if _, err := g.Dialer(dial, func() {})("tcp", "127.0.0.1:1", time.Second); !errors.Is(err, ErrRetired) {
		t.Fatalf("dial = %v, want %v", err, ErrRetired)
	}
}

// A reply held back for SetWatches is never delivered without it: retiring
// the gate, or waiting out ReadHold, fails the read instead.
func TestHeldReplyFailsWithoutSetWatches(t *testing.T) {
	for _, tc := range []struct {
		name   string
		retire bool
		want   error
	}{{"retired", true, ErrRetired}, {"timed out", false, errNoSetWatches}} {
		t.Run(tc.name, func(t *testing.T) {
			g := armedGate(7)
			client, server, _ := dialPipe(t, g)
			go func() {
				server.Write(reply(0, 0, "connect response"))
				server.Write(reply(2, 9, "close: zxid 9"))
			}()
			if _, err := readFrame(client); err != nil {
				t.Fatal(err)
			}
			if tc.retire {
				g.Retire()
			}
			began := time.Now()
			got, err := readFrame(client)
			if !errors.Is(err, tc.want) {
				t.Fatalf("read = %q, %v; want %v", got, err, tc.want)
			}
			if tc.retire && time.Since(began) >= ReadHold {
				t.Fatalf("a retired gate failed the read after %v, want at once", time.Since(began))
			}
		})
	}
}
