package framework_test

import (
	"encoding/binary"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// Requests that go-zookeeper queued while a connection dropped go out first
// on the next one, and their replies arrive while go-zookeeper reads the zxid
// it sets the session's watches again from. The client holds those replies
// back until the SetWatches request is written (rewatch.go); without that,
// the race detector reports go-zookeeper's read and write of that zxid here
// (this test guards the fix only under -race, which make test uses).
func TestRequestsQueuedAcrossReconnectsDoNotRaceTheWatchReset(t *testing.T) {
	const cycles = 100
	p := zktest.StartProxy(t, sharedServer(t).ConnectString())
	// The address twice: go-zookeeper empties its queue and waits a second
	// before dialing a list it has gone through; with two entries it
	// reconnects at once and sends what it queued meanwhile.
	c, _ := startRecorded(t, p.Addr()+","+p.Addr(), framework.WithSessionTimeout(10*time.Second))
	conn := c.Conn()

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1_000_000; i++ {
				select {
				case <-stop:
					return
				default:
				}
				conn.Exists("/") // errors are expected while the connection is down
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()

	deadline := time.Now().Add(60 * time.Second)
	for i := 0; i < cycles; i++ {
		rewatched := p.RequestCount(zktest.OpSetWatches)
		p.Sever()
		for conn.State() != zk.StateHasSession || p.RequestCount(zktest.OpSetWatches) == rewatched {
			if time.Now().After(deadline) {
				t.Fatalf("cycle %d: no reconnect with SetWatches before the deadline", i)
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// A session the client gave up (simulated expiry) is never resumed: the old
// connection generation dials no more, so every connect request after LOST
// asks for a new session, and the old session's nodes go with it.
func TestGivenUpSessionIsNeverResumed(t *testing.T) {
	p := zktest.StartProxy(t, sharedServer(t).ConnectString())
	var mu sync.Mutex
	var asked []int64 // the session id of each connect request, in order
	record := func(id int64) { mu.Lock(); asked = append(asked, id); mu.Unlock() }
	dial := func(network, address string, timeout time.Duration) (net.Conn, error) {
		c, err := net.DialTimeout(network, address, timeout)
		if err != nil {
			return nil, err
		}
		return &connectSniffer{Conn: c, record: record}, nil
	}
	c, r := startRecorded(t, p.Addr(), framework.WithDialer(dial))
	old := c.SessionID()
	oldGeneration := framework.GenerationDialer(c, func(string, string, time.Duration) (net.Conn, error) {
		t.Error("a given-up generation dialed")
		return nil, errors.New("refused by the test")
	})

	p.Pause()
	r.await(t, C, S, L)
	mu.Lock()
	from := len(asked)
	mu.Unlock()
	p.Resume()
	r.await(t, C, S, L, R)

	if _, err := oldGeneration("tcp", p.Addr(), time.Second); !errors.Is(err, framework.ErrGivenUp) {
		t.Fatalf("dial of the given-up generation: %v, want %v", err, framework.ErrGivenUp)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, id := range asked[from:] {
		if id == old {
			t.Fatalf("a connect request after LOST resumed the given-up session %#x (requests %#x)", old, asked)
		}
	}
}

// connectSniffer records the session id of the connect request, the first
// write on a connection: length, protocol version, last zxid, timeout, then
// the session id.
type connectSniffer struct {
	net.Conn
	record func(int64)
	seen   bool
}

func (c *connectSniffer) Write(p []byte) (int, error) {
	if !c.seen && len(p) >= 28 {
		c.seen = true
		c.record(int64(binary.BigEndian.Uint64(p[20:28])))
	}
	return c.Conn.Write(p)
}

// A client alone with its server gives a severed session up while
// go-zookeeper waits a second to redial, so the old connection may resume
// the session just as the client closes it: go-zookeeper then sends its
// close request ahead of SetWatches, and the reply to it must not be
// delivered before SetWatches (under -race, go-zookeeper's read of lastZxid
// races with it otherwise). Each cycle ends with the session replaced.
func TestClosingAGivenUpConnectionMidResumeDoesNotRace(t *testing.T) {
	const cycles = 6
	p := zktest.StartProxy(t, sharedServer(t).ConnectString())
	c, r := startRecorded(t, p.Addr())
	ctx := testCtx(t)
	want := []framework.ConnectionState{C}
	for i := 0; i < cycles; i++ {
		if _, err := c.Exists(ctx, "/"); err != nil { // a reply with a zxid to hold back
			t.Fatal(err)
		}
		p.Sever()
		want = append(want, S, L, R)
		r.await(t, want...)
	}
}
