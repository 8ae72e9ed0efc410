package gozk

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

// On every new connection the Exchange runs before go-zookeeper's first
// request: the first request the server gets on each connection is ours,
// and go-zookeeper's requests go out once the Exchange returns.
func TestExchangeRunsBeforeGoZookeeperRequests(t *testing.T) {
	p := zktest.StartProxy(t, sharedServer(t).Addr())
	var mu sync.Mutex
	first := make(map[int64]int32) // session → xid of the first request seen on its latest connection
	conns := 0
	p.Trace(func(f zktest.Frame) {
		if f.FromServer {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if _, seen := first[f.Session]; !seen {
			first[f.Session] = f.Xid
		}
	})
	hooks := Hooks{Exchange: func(ctx context.Context, l *Link) error {
		mu.Lock()
		conns++
		mu.Unlock()
		time.Sleep(100 * time.Millisecond) // go-zookeeper's requests wait meanwhile
		_, err := existsCzxid(ctx, l, "/zookeeper")
		return err
	}}
	conn, g := gozkConn(t, p.Addr(), hooks)
	check := func() {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		for sid, xid := range first {
			if !isOwnXid(xid) {
				t.Fatalf("session %#x: the first request on the connection had xid %d, not ours", sid, xid)
			}
		}
		clear(first)
	}
	if _, _, err := conn.Exists("/"); err != nil {
		t.Fatal(err)
	}
	check()
	old := link(t, g)
	p.Sever()
	zktest.Eventually(t, testWait, "a new connection", func() bool {
		l, err := g.Link()
		return err == nil && l != old
	})
	if _, _, err := conn.Exists("/"); err != nil {
		t.Fatal(err)
	}
	check()
	mu.Lock()
	defer mu.Unlock()
	if conns < 2 {
		t.Fatalf("the exchange ran on %d connections, want 2", conns)
	}
}

// A request whose connection ends before its reply fails with a
// connection loss, and so does one sent on an ended connection.
func TestRequestFailsWhenConnectionEnds(t *testing.T) {
	p := zktest.StartProxy(t, sharedServer(t).Addr())
	_, g := gozkConn(t, p.Addr(), Hooks{})
	l := link(t, g)
	p.Pause()
	got := make(chan error, 1)
	l.Send(opExists, WatchRequestBody("/zookeeper"), func(_ Reply, err error) { got <- err })
	p.Sever()
	select {
	case err := <-got:
		if !errors.Is(err, zk.ErrConnectionClosed) || !errors.Is(err, ErrLinkClosed) {
			t.Fatalf("request on a severed connection: %v, want a connection loss", err)
		}
	case <-time.After(testWait):
		t.Fatal("the request never ended")
	}
	p.Resume()
	if _, err := l.Do(zktest.Context(t, testWait), opExists, WatchRequestBody("/zookeeper")); !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("request on an ended connection: %v, want a connection loss", err)
	}
}

// WatchRequestBody is an exists body without a watch.
func WatchRequestBody(path string) []byte {
	_, body := WatchRequest(path, OneShotData)
	body[len(body)-1] = 0
	return body
}

// A server that does not know an opcode answers UNIMPLEMENTED (and closes
// the connection): the reply maps to ErrUnimplemented.
func TestUnknownOpcodeIsUnimplemented(t *testing.T) {
	_, g := gozkConn(t, sharedServer(t).Addr(), Hooks{})
	l := link(t, g)
	_, err := l.Do(zktest.Context(t, testWait), 9999, PathRequest("/", 0))
	if !errors.Is(err, ErrUnimplemented) {
		t.Fatalf("unknown opcode: %v, want ErrUnimplemented", err)
	}
}

// Notifications reach Notify before go-zookeeper, which still gets them.
func TestNotifyThenGoZookeeper(t *testing.T) {
	var mu sync.Mutex
	var notes []Notification
	conn, g := gozkConn(t, sharedServer(t).Addr(), Hooks{Notify: func(n Notification) {
		mu.Lock()
		notes = append(notes, n)
		mu.Unlock()
	}})
	path := "/TestNotifyThenGoZookeeper"
	_, _, ch, err := conn.ExistsW(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Create(path, nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	ev := <-ch
	mu.Lock()
	defer mu.Unlock()
	if ev.Type != zk.EventNodeCreated || len(notes) != 1 || notes[0].Path != path || notes[0].Type != zk.EventNodeCreated {
		t.Fatalf("go-zookeeper got %+v, Notify %+v", ev, notes)
	}
	_ = g
}

// Link.Ready waits for the connection's Exchange: it returns nil once the
// Exchange ended well, and a connection loss once a failed Exchange ended
// the connection, so that a request of the owner's never goes out ahead of
// an authentication.
func TestLinkReadyWaitsForTheExchange(t *testing.T) {
	p := zktest.StartProxy(t, sharedServer(t).Addr())
	release := make(chan error)
	_, g := gozkConn(t, p.Addr(), Hooks{Exchange: func(ctx context.Context, _ *Link) error {
		select {
		case err := <-release:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}})
	l := link(t, g)
	short, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := l.Ready(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Ready during the Exchange = %v; want it to wait until ctx ends", err)
	}
	release <- nil
	if err := l.Ready(zktest.Context(t, testWait)); err != nil {
		t.Fatalf("Ready after the Exchange = %v", err)
	}

	p.Sever()
	var next *Link
	zktest.Eventually(t, testWait, "a new connection", func() bool {
		next, _ = g.Link()
		return next != nil && next != l
	})
	release <- errors.New("refused")
	if err := next.Ready(zktest.Context(t, testWait)); !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("Ready after a failed Exchange = %v; want a connection loss", err)
	}
}
