package atomic_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	gatomic "sync/atomic"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/atomic"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// lossyLong returns a counter at path, below /lost, on a client whose
// replies proxy can lose; /lost exists, so that a lost create is the
// counter's own.
func lossyLong(t *testing.T, path string) (*zktest.Server, *zktest.Proxy, *atomic.DistributedAtomicLong) {
	t.Helper()
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, proxy.Addr())
	_, err := c.Create(zktest.TestContext(t), "/lost", nil)
	zktest.Must(t, err)
	l, err := atomic.NewDistributedAtomicLong(c, path)
	zktest.Must(t, err)
	return srv, proxy, l
}

// The reply to the counter's setData is lost after the server applied it:
// the increment is reported unknown, and it applied exactly once (the
// framework's retry of the write got BadVersion, which was not taken for a
// conflict and tried again).
func TestAtomicLongLostSetDataReplyIsUnknownNotDoubled(t *testing.T) {
	srv, proxy, l := lossyLong(t, "/lost/setdata")
	ctx := zktest.TestContext(t)
	observer, err := atomic.NewDistributedAtomicLong(zkclient.New(t, srv.ConnectString()), "/lost/setdata")
	zktest.Must(t, err)
	_, err = l.Initialize(ctx, 41)
	zktest.Must(t, err)

	proxy.LoseNextReply(zktest.OpSetData, zktest.OpMulti)
	r, err := l.Increment(ctx)
	if !errors.Is(err, atomic.ErrOutcomeUnknown) || r.Succeeded {
		t.Fatalf("Increment with a lost reply = %+v, %v; want ErrOutcomeUnknown", r, err)
	}
	if proxy.LostReplies() != 1 {
		t.Fatalf("LostReplies() = %d, want 1", proxy.LostReplies())
	}
	if r.PreValue != 41 || r.PostValue != 42 {
		t.Errorf("unknown result frames %d -> %d, want 41 -> 42", r.PreValue, r.PostValue)
	}
	got, err := observer.Get(ctx)
	zktest.Must(t, err)
	if got.PostValue != 42 {
		t.Fatalf("counter = %d, want 42 (the lost write applied once)", got.PostValue)
	}
	// The client works on.
	if r, err = l.Increment(ctx); err != nil || !r.Succeeded || r.PostValue != 43 {
		t.Fatalf("next Increment = %+v, %v", r, err)
	}
}

// The reply to the create of a missing counter node is lost: unknown, and
// the node holds exactly one increment.
func TestAtomicLongLostCreateReplyIsUnknownNotDoubled(t *testing.T) {
	srv, proxy, l := lossyLong(t, "/lost/create")
	ctx := zktest.TestContext(t)

	proxy.LoseNextReply(zktest.OpCreate, zktest.OpCreate2)
	r, err := l.Increment(ctx)
	if !errors.Is(err, atomic.ErrOutcomeUnknown) {
		t.Fatalf("Increment with a lost create reply = %+v, %v; want ErrOutcomeUnknown", r, err)
	}
	if proxy.LostReplies() != 1 {
		t.Fatalf("LostReplies() = %d, want 1", proxy.LostReplies())
	}
	observer, err := atomic.NewDistributedAtomicLong(zkclient.New(t, srv.ConnectString()), "/lost/create")
	zktest.Must(t, err)
	got, err := observer.Get(ctx)
	zktest.Must(t, err)
	if got.PostValue != 1 {
		t.Fatalf("counter = %d, want 1", got.PostValue)
	}
}

// A lost reply to a CompareAndSet is unknown too, and a lost reply that
// Initialize cannot resolve is not reported as "already there".
func TestAtomicLostReplyCompareAndSetAndInitialize(t *testing.T) {
	_, proxy, l := lossyLong(t, "/lost/cas")
	ctx := zktest.TestContext(t)

	proxy.LoseNextReply(zktest.OpCreate, zktest.OpCreate2)
	if created, err := l.Initialize(ctx, 5); !errors.Is(err, atomic.ErrOutcomeUnknown) || created {
		t.Fatalf("Initialize with a lost reply = %v, %v; want ErrOutcomeUnknown", created, err)
	}
	proxy.LoseNextReply(zktest.OpSetData)
	if r, err := l.CompareAndSet(ctx, 5, 6); !errors.Is(err, atomic.ErrOutcomeUnknown) || r.Succeeded {
		t.Fatalf("CompareAndSet with a lost reply = %+v, %v; want ErrOutcomeUnknown", r, err)
	}
	if r, err := l.Get(ctx); err != nil || r.PostValue != 6 {
		t.Fatalf("Get = %+v, %v; want 6", r, err)
	}
}

// A server restart while clients increment loses and doubles nothing.
func TestAtomicLongServerRestart(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	var tally tally
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		l, err := atomic.NewDistributedAtomicLong(zkclient.New(t, srv.ConnectString()), "/restart/counter",
			atomic.WithRetryPolicy(retry.NTimes{N: 50, Sleep: time.Millisecond}))
		zktest.Must(t, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			incrementUntil(ctx, l, stop, &tally)
		}()
	}
	zktest.Eventually(t, 10*time.Second, "increments before the restart", func() bool { return tally.get().ok >= 20 })
	zktest.Must(t, srv.Restart())
	before := tally.get().ok
	zktest.Eventually(t, 20*time.Second, "increments after the restart", func() bool { return tally.get().ok >= before+20 })
	close(stop)
	wg.Wait()
	tally.check(t, ctx, srv.ConnectString(), "/restart/counter")
}

// Several clients increment one counter through proxies that sever
// connections, lose replies to writes and pause long enough to expire
// sessions, with the server restarted once. At the end the counter equals
// the increments reported successful plus some of those reported unknown.
func TestAtomicLongRandomizedFaults(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed>>1))
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	const clients = 3
	const session = 1200 * time.Millisecond
	var tally tally
	var sessionsLost gatomic.Int32
	stop := make(chan struct{})
	var wg sync.WaitGroup
	proxies := make([]*zktest.Proxy, clients)
	for i := range proxies {
		proxies[i] = zktest.StartProxy(t, srv.ConnectString())
		opts := []atomic.Option{atomic.WithRetryPolicy(retry.NTimes{N: 20, Sleep: time.Millisecond})}
		if i%2 == 0 {
			opts = append(opts, atomic.WithPromotedToLock(atomic.PromotedToLock{
				LockPath: "/random/lock", MaxLockTime: time.Second, RetryPolicy: retry.NTimes{N: 5},
			}))
		}
		c := zkclient.New(t, proxies[i].Addr(), framework.WithSessionTimeout(session))
		stopListen := c.Listen(func(st framework.ConnectionState) {
			if st == framework.Lost {
				sessionsLost.Add(1)
			}
		})
		defer stopListen()
		l, err := atomic.NewDistributedAtomicLong(c, "/random/counter", opts...)
		zktest.Must(t, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			incrementUntil(ctx, l, stop, &tally)
		}()
	}

	deadline := time.Now().Add(10 * time.Second)
	restarted, expired := false, false
	for step := 0; time.Now().Before(deadline) && step < 200; step++ {
		p := proxies[rng.IntN(clients)]
		switch k := rng.IntN(10); {
		case !expired && time.Until(deadline) < 8*time.Second:
			// One partition surely longer than the session timeout.
			expired = true
			p.Pause()
			time.Sleep(2 * session) // a partition's length, not a synchronization
			p.Resume()
		case k < 5:
			p.LoseNextReply(zktest.OpSetData, zktest.OpCreate, zktest.OpCreate2, zktest.OpMulti)
		case k < 7:
			p.Sever()
		case k < 9:
			p.Pause()
			time.Sleep(time.Duration(rng.Int64N(int64(2 * session)))) // a partition's length, not a synchronization
			p.Resume()
		case !restarted && time.Until(deadline) < 6*time.Second:
			restarted = true
			zktest.Must(t, srv.Restart())
		}
		time.Sleep(time.Duration(100+rng.IntN(200)) * time.Millisecond)
	}
	// A random schedule on a loaded machine may replace every arming before
	// a write matched it: arm all proxies until one has lost a reply.
	lost := func() (n int) {
		for _, p := range proxies {
			n += p.LostReplies()
		}
		return n
	}
	zktest.Eventually(t, 20*time.Second, "a lost reply to a write", func() bool {
		if lost() == 0 {
			for _, p := range proxies {
				p.LoseNextReply(zktest.OpSetData, zktest.OpCreate, zktest.OpCreate2, zktest.OpMulti)
			}
		}
		return lost() > 0
	})
	close(stop)
	wg.Wait()
	got := tally.check(t, ctx, srv.ConnectString(), "/random/counter")
	t.Logf("%+v, %d replies lost by the proxies, %d sessions lost, restarted %v, final %d", tally.get(), lost(), sessionsLost.Load(), restarted, got)
	if sessionsLost.Load() == 0 {
		t.Error("no session was lost: the long partition did not bite")
	}
	if tally.get().unknown == 0 {
		t.Errorf("the run reported no unknown outcome (%+v) though %d replies were lost: faults did not bite", tally.get(), lost())
	}
}

// counts is what a tally has recorded.
type counts struct{ ok, unknown, failed int }

// tally records the outcomes of increments.
type tally struct {
	mu sync.Mutex
	c  counts
}

func (t *tally) add(r atomic.AtomicValue[int64], err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case errors.Is(err, atomic.ErrOutcomeUnknown):
		t.c.unknown++
	case err == nil && r.Succeeded:
		t.c.ok++
	default:
		t.c.failed++
	}
}

func (t *tally) get() counts {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.c
}

// check reads the counter and fails the test unless it lies between the
// successful increments and those plus the unknown ones. It returns it.
func (t *tally) check(tb testing.TB, ctx context.Context, connect, path string) int64 {
	tb.Helper()
	l, err := atomic.NewDistributedAtomicLong(zkclient.New(tb, connect), path)
	if err != nil {
		tb.Fatal(err)
	}
	r, err := l.Get(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	c := t.get()
	if r.PostValue < int64(c.ok) || r.PostValue > int64(c.ok+c.unknown) {
		tb.Fatalf("counter = %d; want between %d successful and %d successful+unknown increments (%d failed): an increment was lost or applied twice",
			r.PostValue, c.ok, c.ok+c.unknown, c.failed)
	}
	return r.PostValue
}

// incrementUntil increments l until stop closes, each increment bounded
// by its own timeout, recording every outcome.
func incrementUntil(ctx context.Context, l *atomic.DistributedAtomicLong, stop <-chan struct{}, t *tally) {
	for i := 0; i < 100000; i++ {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		default:
		}
		opCtx, cancel := context.WithTimeout(ctx, 3*time.Second)
		r, err := l.Increment(opCtx)
		cancel()
		t.add(r, err)
		// Back to back while the connection is up: a request queued in
		// go-zookeeper when the connection drops is what the framework's
		// reply gate exists for. After a failure, a client's pause.
		if err != nil && sleepOrStop(stop, errorPause) != nil {
			return
		}
	}
}

// errorPause is a client's pause after a failed increment in fault tests.
const errorPause = 20 * time.Millisecond

func sleepOrStop(stop <-chan struct{}, d time.Duration) error {
	select {
	case <-stop:
		return fmt.Errorf("stopped")
	case <-time.After(d):
		return nil
	}
}
