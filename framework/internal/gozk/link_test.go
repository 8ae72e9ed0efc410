package gozk

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

const (
	testSession = 4 * time.Second
	testWait    = 20 * time.Second
)

var shared struct {
	once sync.Once
	srv  *zktest.Server
	err  error
}

// sharedServer is one ZooKeeper for the tests that neither stop nor pause
// it; it stops with the test binary (stopServer in TestMain).
func sharedServer(t testing.TB) *zktest.Server {
	t.Helper()
	shared.once.Do(func() { shared.srv, shared.err = zktest.NewServer() })
	if shared.err != nil {
		t.Fatalf("cannot start ZooKeeper: %v", shared.err)
	}
	return shared.srv
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}

// gozkConn is a go-zookeeper connection to addr whose dials go through a
// Gate with hooks, connected, closed with the test.
func gozkConn(t testing.TB, addr string, hooks Hooks) (*zk.Conn, *Gate) {
	t.Helper()
	g := NewGateHooks(hooks)
	conn, events, err := zk.Connect([]string{addr}, testSession, zk.WithLogger(quiet{}),
		zk.WithDialer(g.Dialer(net.DialTimeout, func() {})))
	if err != nil {
		t.Fatal(err)
	}
	g.SetConn(conn)
	t.Cleanup(func() {
		conn.Close()
		g.Shut()
		for range events {
		}
	})
	awaitSession(t, events)
	return conn, g
}

func awaitSession(t testing.TB, events <-chan zk.Event) {
	t.Helper()
	deadline := time.After(testWait)
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				return
			}
		case <-deadline:
			t.Fatalf("no session within %v", testWait)
		}
	}
}

// link returns g's current Link, waiting for one.
func link(t testing.TB, g *Gate) *Link {
	t.Helper()
	var l *Link
	zktest.Eventually(t, testWait, "a connection with a session", func() bool {
		l, _ = g.Link()
		return l != nil
	})
	return l
}

// existsCzxid sends exists(path) as a request of ours and returns the
// node's czxid (the first field of its Stat), 0 when it does not exist.
func existsCzxid(ctx context.Context, l *Link, path string) (int64, error) {
	body := binary.BigEndian.AppendUint32(nil, uint32(len(path)))
	body = append(body, path...)
	body = append(body, 0) // no watch
	r, err := l.Do(ctx, opExists, body)
	if errors.Is(err, zk.ErrNoNode) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if len(r.Body) < 8 {
		return 0, fmt.Errorf("exists reply of %d bytes", len(r.Body))
	}
	return int64(binary.BigEndian.Uint64(r.Body[:8])), nil
}

// ZooKeeper answers requests whose xids are at both ends of our range with
// those xids, and go-zookeeper's requests go on beside them.
func TestServerEchoesOwnXids(t *testing.T) {
	p := zktest.StartProxy(t, sharedServer(t).Addr())
	var mu sync.Mutex
	replied := make(map[int32]bool)
	p.Trace(func(f zktest.Frame) {
		if f.FromServer && isOwnXid(f.Xid) {
			mu.Lock()
			replied[f.Xid] = true
			mu.Unlock()
		}
	})
	conn, g := gozkConn(t, p.Addr(), Hooks{})
	l := link(t, g)
	ctx := zktest.Context(t, testWait)
	g.xids.Store(ownXidSpan - 1) // the next xids: -2^31+1, then -2^30
	for _, want := range []int32{-1<<31 + 1, -1 << 30} {
		if _, err := existsCzxid(ctx, l, "/zookeeper"); err != nil {
			t.Fatalf("exists with xid %d: %v", want, err)
		}
		mu.Lock()
		ok := replied[want]
		mu.Unlock()
		if !ok {
			t.Fatalf("the server's reply did not carry xid %d", want)
		}
	}
	if _, _, err := conn.Exists("/zookeeper"); err != nil {
		t.Fatalf("go-zookeeper's exists after ours: %v", err)
	}
}

// nodes creates n nodes under root with distinct data on the shared server
// and returns their paths, data and czxids.
func nodes(t *testing.T, root string, n int) (paths []string, data [][]byte, czxids []int64) {
	t.Helper()
	conn, _ := gozkConn(t, sharedServer(t).Addr(), Hooks{})
	if _, err := conn.Create(root, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		t.Fatal(err)
	}
	for i := range n {
		p, d := fmt.Sprintf("%s/n%03d", root, i), []byte(fmt.Sprintf("data of node %d", i))
		if _, err := conn.Create(p, d, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			t.Fatal(err)
		}
		st, err := conn.Set(p, d, -1)
		if err != nil {
			t.Fatal(err)
		}
		paths, data, czxids = append(paths, p), append(data, d), append(czxids, st.Czxid)
	}
	return paths, data, czxids
}

// isConnectionLoss reports whether err is what a request whose connection
// ended returns.
func isConnectionLoss(err error) bool {
	return errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrNoServer) ||
		errors.Is(err, ErrNoLink) || errors.Is(err, zk.ErrSessionExpired)
}

// awaitLink waits until g has a connection with a session, or ctx ends.
func awaitLink(ctx context.Context, g *Gate) {
	for ctx.Err() == nil {
		if _, err := g.Link(); err == nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Many go-zookeeper GetData calls on distinct nodes with distinct data run
// beside many requests of ours (exists, addWatch, removeWatches) on the same
// connection while the proxy severs and pauses it: every reply that arrives
// is the reply to its own request, and every other call fails with a
// connection loss.
func TestRepliesMatchRequestsUnderFaults(t *testing.T) {
	paths, data, czxids := nodes(t, "/TestRepliesMatchRequestsUnderFaults", 24)
	p := zktest.StartProxy(t, sharedServer(t).Addr())
	conn, g := gozkConn(t, p.Addr(), Hooks{})
	ctx := zktest.Context(t, testWait*2)
	const workers, rounds = 6, 150
	var theirs, ours, watches, losses atomic.Int64
	var wg sync.WaitGroup
	fail := func(format string, args ...any) { t.Errorf(format, args...) }
	for w := range workers {
		wg.Add(3)
		go func() { // go-zookeeper's requests
			defer wg.Done()
			for r := range rounds {
				i := (w*rounds + r) % len(paths)
				got, _, err := conn.Get(paths[i])
				switch {
				case isConnectionLoss(err):
					losses.Add(1)
				case err != nil:
					fail("GetData(%s): %v", paths[i], err)
				case string(got) != string(data[i]):
					fail("GetData(%s) = %q, want %q", paths[i], got, data[i])
				default:
					theirs.Add(1)
				}
			}
		}()
		go func() { // ours: exists, whose Stat names the node
			defer wg.Done()
			for r := range rounds {
				i := (w*rounds + r*7) % len(paths)
				l, err := g.Link()
				if err == nil {
					var cz int64
					cz, err = existsCzxid(ctx, l, paths[i])
					if err == nil && cz != czxids[i] {
						fail("exists(%s): czxid %d, want %d", paths[i], cz, czxids[i])
						continue
					}
				}
				switch {
				case isConnectionLoss(err):
					losses.Add(1)
					awaitLink(ctx, g)
				case err != nil:
					fail("exists(%s): %v", paths[i], err)
				default:
					ours.Add(1)
				}
			}
		}()
		go func() { // ours: a persistent watch added, then removed
			defer wg.Done()
			for r := range rounds {
				i := (w + r*workers) % len(paths)
				l, err := g.Link()
				if err == nil {
					_, err = l.Do(ctx, OpAddWatch, PathRequest(paths[i], AddWatchPersistent))
				}
				if err == nil {
					// Any: ZooKeeper 3.8 cannot read the persistent watcher types.
					_, err = l.Do(ctx, OpRemoveWatches, PathRequest(paths[i], WatcherAny))
					if errors.Is(err, ErrNoWatcher) { // another worker's removal came first
						err = nil
					}
				}
				switch {
				case isConnectionLoss(err):
					losses.Add(1)
					awaitLink(ctx, g)
				case err != nil:
					fail("addWatch/removeWatches(%s): %v", paths[i], err)
				default:
					watches.Add(1)
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	faults := []func(){p.Sever, func() { p.Pause(); time.Sleep(100 * time.Millisecond); p.Resume() }, p.Sever}
	for _, fault := range faults {
		select {
		case <-done:
		case <-time.After(150 * time.Millisecond): // spread the faults over the run
			fault()
		}
	}
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("the workers did not finish")
	}
	t.Logf("go-zookeeper replies %d, ours %d, watch pairs %d, connection losses %d",
		theirs.Load(), ours.Load(), watches.Load(), losses.Load())
	if theirs.Load() == 0 || ours.Load() == 0 || watches.Load() == 0 {
		t.Fatal("a kind of request never succeeded: the test proved nothing")
	}
}
