package locks_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"path"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/locktest"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

func TestReadWriteLockParticipantNodes(t *testing.T) {
	const readers, writers = 20, 8
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	clients := []*framework.Client{zkclient.New(t, srv.ConnectString()), zkclient.New(t, srv.ConnectString())}
	newLock := func(i int) *locks.InterProcessReadWriteLock {
		return built(locks.NewInterProcessReadWriteLock(clients[i%len(clients)], "/rw-participants"))
	}
	observer := newLock(0)
	var check locktest.Checker
	exit := make(chan struct{})
	errs := make(chan error, readers+writers)
	var wg sync.WaitGroup
	hold := func(m *locks.InterProcessMutex, enter func() func()) {
		defer wg.Done()
		if err := m.Acquire(ctx); err != nil {
			errs <- err
			return
		}
		leave := enter()
		<-exit
		leave()
		errs <- m.Release(ctx)
	}
	for i := 0; i < readers; i++ {
		wg.Add(1)
		go hold(newLock(i).ReadLock(), check.EnterShared)
	}
	zktest.Eventually(t, 15*time.Second, "every reader holds", func() bool { return check.Entries() == readers })
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go hold(newLock(i).WriteLock(), check.Enter)
	}
	waitParticipants(t, observer.WriteLock(), writers)

	readNodes, err := observer.ReadLock().ParticipantNodes(ctx)
	zktest.Must(t, err)
	writeNodes, err := observer.WriteLock().ParticipantNodes(ctx)
	zktest.Must(t, err)
	if len(readNodes) != readers || len(writeNodes) != writers {
		t.Fatalf("participants: %d readers, %d writers; want %d and %d", len(readNodes), len(writeNodes), readers, writers)
	}
	for _, n := range readNodes {
		if name := path.Base(n); !protection.IsProtected(name) || !strings.Contains(name, "-__READ__") {
			t.Errorf("read participant %s is not a protected __READ__ node", n)
		}
	}
	for _, n := range writeNodes {
		if name := path.Base(n); !protection.IsProtected(name) || !strings.Contains(name, "-__WRIT__") {
			t.Errorf("write participant %s is not a protected __WRIT__ node", n)
		}
	}
	close(exit)
	wg.Wait()
	close(errs)
	for err := range errs {
		zktest.Must(t, err)
	}
	if v := check.Violations(); v != 0 {
		t.Fatalf("%d overlapping holds", v)
	}
	waitParticipants(t, observer.ReadLock(), 0)
}

func TestReadWriteLockRefusesUpgrade(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	rw := built(locks.NewInterProcessReadWriteLock(c, "/rw-upgrade"))
	zktest.Must(t, rw.ReadLock().Acquire(ctx))
	start := time.Now()
	if err := rw.WriteLock().Acquire(ctx); !errors.Is(err, locks.ErrUpgrade) {
		t.Fatalf("write Acquire while holding the read lock = %v, want ErrUpgrade", err)
	}
	if ok, err := rw.WriteLock().TryAcquire(ctx, 5*time.Second); ok || !errors.Is(err, locks.ErrUpgrade) {
		t.Fatalf("write TryAcquire while holding the read lock = %v, %v; want false, ErrUpgrade", ok, err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("refusing the upgrade took %v; want no wait", d)
	}
	if nodes, err := rw.WriteLock().ParticipantNodes(ctx); err != nil || len(nodes) != 0 {
		t.Fatalf("after refused upgrades, write participants %v (err %v); want none", nodes, err)
	}
	if rw.WriteLock().IsAcquiredInThisProcess() {
		t.Fatal("refused write lock reports held")
	}
	// Another pair's writer waits for our reader.
	other := built(locks.NewInterProcessReadWriteLock(zkclient.New(t, srv.ConnectString()), "/rw-upgrade"))
	if ok, err := other.WriteLock().TryAcquire(ctx, 100*time.Millisecond); ok || err != nil {
		t.Fatalf("another writer's TryAcquire during a read hold = %v, %v; want false, nil", ok, err)
	}
	zktest.Must(t, rw.ReadLock().Release(ctx))
	zktest.Must(t, rw.WriteLock().Acquire(ctx))
	zktest.Must(t, rw.WriteLock().Release(ctx))
}

func TestReadWriteLockDowngrade(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	rw := built(locks.NewInterProcessReadWriteLock(c, "/rw-downgrade"))
	other := built(locks.NewInterProcessReadWriteLock(zkclient.New(t, srv.ConnectString()), "/rw-downgrade"))

	zktest.Must(t, rw.WriteLock().Acquire(ctx))
	writeNode := rw.WriteLock().LockPath()
	if ok, err := rw.ReadLock().TryAcquire(ctx, 0); !ok || err != nil {
		t.Fatalf("read TryAcquire(0) while holding the write lock = %v, %v; want true", ok, err)
	}
	readNode := rw.ReadLock().LockPath()
	writeSeq, err := protection.Sequence(path.Base(writeNode))
	zktest.Must(t, err)
	readSeq, err := protection.Sequence(path.Base(readNode))
	zktest.Must(t, err)
	if readSeq != writeSeq || !strings.Contains(readNode, "-__READ__") {
		t.Fatalf("downgrade read node %s; want a __READ__ node with the write node's sequence (%s)", readNode, writeNode)
	}
	stat, err := c.Exists(ctx, readNode)
	zktest.Must(t, err)
	if stat == nil || stat.EphemeralOwner != c.SessionID() {
		t.Fatalf("downgrade read node %s: stat %+v; want an ephemeral node of our session", readNode, stat)
	}

	zktest.Must(t, rw.WriteLock().Release(ctx))
	if !rw.ReadLock().IsAcquiredInThisProcess() {
		t.Fatal("read lock not held after releasing the write lock")
	}
	if ok, err := other.WriteLock().TryAcquire(ctx, 100*time.Millisecond); ok || err != nil {
		t.Fatalf("another writer's TryAcquire after the downgrade = %v, %v; want false, nil", ok, err)
	}
	if ok, err := other.ReadLock().TryAcquire(ctx, 0); !ok || err != nil {
		t.Fatalf("another reader's TryAcquire(0) after the downgrade = %v, %v; want true", ok, err)
	}
	zktest.Must(t, other.ReadLock().Release(ctx))
	zktest.Must(t, rw.ReadLock().Release(ctx))
	if ok, err := other.WriteLock().TryAcquire(ctx, 0); !ok || err != nil {
		t.Fatalf("writer's TryAcquire(0) once every reader left = %v, %v; want true", ok, err)
	}
	zktest.Must(t, other.WriteLock().Release(ctx))
}

// TestReadWriteLockContendingDowngradeKeepsWriterOut: a writer queued while we
// hold the write lock must not get in when we downgrade and release the write
// lock, even though it watches our write node and sees it deleted.
func TestReadWriteLockContendingDowngradeKeepsWriterOut(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	a := built(locks.NewInterProcessReadWriteLock(zkclient.New(t, srv.ConnectString()), "/rw-contending"))
	b := built(locks.NewInterProcessReadWriteLock(zkclient.New(t, proxy.Addr()), "/rw-contending"))

	zktest.Must(t, a.WriteLock().Acquire(ctx))
	got := make(chan error, 1)
	go func() { got <- b.WriteLock().Acquire(ctx) }()
	waitParticipants(t, a.WriteLock(), 2)
	zktest.Eventually(t, 10*time.Second, "the queued writer watches our write node", func() bool {
		return proxy.RequestCount(zktest.OpGetData) > 0
	})

	zktest.Must(t, a.ReadLock().Acquire(ctx))
	proxy.ResetCounts()
	zktest.Must(t, a.WriteLock().Release(ctx))
	zktest.Eventually(t, 10*time.Second, "the queued writer reacts to the write release", func() bool {
		return len(got) > 0 || proxy.RequestCount(zktest.OpGetData) > 0
	})
	assertPending(t, got, "queued writer's Acquire after the downgrade")
	if b.WriteLock().IsAcquiredInThisProcess() {
		t.Fatal("queued writer holds the lock while we hold the downgraded read lock")
	}

	zktest.Must(t, a.ReadLock().Release(ctx))
	awaitResult(t, got, "queued writer's Acquire once the read lock is released")
	zktest.Must(t, b.WriteLock().Release(ctx))
}

// TestReadWriteLockWriterNotStarvedByLaterReaders: readers that arrive after a
// waiting writer queue behind it, though a reader holds the lock.
func TestReadWriteLockWriterNotStarvedByLaterReaders(t *testing.T) {
	const lateReaders = 5
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	newLock := func() *locks.InterProcessReadWriteLock {
		return built(locks.NewInterProcessReadWriteLock(c, "/rw-starve"))
	}
	first, writer := newLock(), newLock()
	var wg sync.WaitGroup
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(func() { // if the test fails early, stop the contenders before the client closes
		cancel()
		wg.Wait()
	})

	zktest.Must(t, first.ReadLock().Acquire(ctx))
	probe := newLock()
	if ok, err := probe.ReadLock().TryAcquire(ctx, 0); !ok || err != nil {
		t.Fatalf("a second reader with no writer waiting: TryAcquire(0) = %v, %v; want true", ok, err)
	}
	zktest.Must(t, probe.ReadLock().Release(ctx))

	var check locktest.Checker
	var order []string
	var orderMu sync.Mutex
	record := func(who string) {
		orderMu.Lock()
		defer orderMu.Unlock()
		order = append(order, who)
	}
	run := func(m *locks.InterProcessMutex, who string, enter func() func()) {
		defer wg.Done()
		if err := m.Acquire(ctx); err != nil {
			t.Errorf("%s: %v", who, err)
			return
		}
		record(who)
		leave := enter()
		time.Sleep(20 * time.Millisecond) // hold briefly so overlaps would show
		leave()
		if err := m.Release(ctx); err != nil {
			t.Errorf("%s: release: %v", who, err)
		}
	}
	wg.Add(1)
	go run(writer.WriteLock(), "writer", check.Enter)
	waitParticipants(t, writer.WriteLock(), 1)

	for i := 0; i < 3; i++ {
		if ok, err := probe.ReadLock().TryAcquire(ctx, 0); ok || err != nil {
			t.Fatalf("a reader arriving after a waiting writer: TryAcquire(0) = %v, %v; want false", ok, err)
		}
	}
	for i := 0; i < lateReaders; i++ {
		wg.Add(1)
		go run(newLock().ReadLock(), "reader", check.EnterShared)
	}
	waitParticipants(t, first.ReadLock(), 1+lateReaders)
	orderMu.Lock()
	if len(order) != 0 {
		t.Errorf("acquired while the first reader held and a writer waited: %v", order)
	}
	orderMu.Unlock()

	zktest.Must(t, first.ReadLock().Release(ctx))
	wg.Wait()
	if len(order) != 1+lateReaders || order[0] != "writer" {
		t.Fatalf("acquisition order %v; want the writer before the %d late readers", order, lateReaders)
	}
	if v := check.Violations(); v != 0 {
		t.Fatalf("%d overlapping holds", v)
	}
}

// TestReadWriteLockManyClients is Curator's testBasic: 8 clients, 100 rounds
// each, 10% of them writes.
func TestReadWriteLockManyClients(t *testing.T) {
	const clients, rounds = 8, 100
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	var check locktest.Checker
	var mu sync.Mutex
	var reads, writes int
	var wg sync.WaitGroup
	for i := 0; i < clients; i++ {
		rw := built(locks.NewInterProcessReadWriteLock(zkclient.New(t, srv.ConnectString()), "/rw-basic"))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				write := rand.IntN(100) < 10
				m, enter := rw.ReadLock(), check.EnterShared
				if write {
					m, enter = rw.WriteLock(), check.Enter
				}
				if err := m.Acquire(ctx); err != nil {
					t.Errorf("round %d: %v", r, err)
					return
				}
				leave := enter()
				time.Sleep(time.Millisecond) // hold briefly so overlaps would show
				leave()
				if err := m.Release(ctx); err != nil {
					t.Errorf("round %d: release: %v", r, err)
					return
				}
				mu.Lock()
				if write {
					writes++
				} else {
					reads++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("%d writes, %d reads, up to %d readers at once", writes, reads, check.MaxShared())
	if v := check.Violations(); v != 0 {
		t.Fatalf("%d holds overlapped a writer", v)
	}
	if reads+writes != clients*rounds || writes == 0 || reads == 0 {
		t.Fatalf("%d writes and %d reads; want %d in all, some of each", writes, reads, clients*rounds)
	}
	if check.MaxShared() < 2 {
		t.Fatalf("readers never overlapped (max %d at once)", check.MaxShared())
	}
}

func TestReadWriteLockReaderSessionExpiryLetsWriterIn(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	readerClient := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(shortSession))
	reader := built(locks.NewInterProcessReadWriteLock(readerClient, "/rw-expiry"))
	writerClient := zkclient.New(t, srv.ConnectString())
	writer := built(locks.NewInterProcessReadWriteLock(writerClient, "/rw-expiry"))

	zktest.Must(t, reader.ReadLock().Acquire(ctx))
	readNode := reader.ReadLock().LockPath()
	lost := reader.ReadLock().Lost()
	got := make(chan error, 1)
	go func() { got <- writer.WriteLock().Acquire(ctx) }()
	waitParticipants(t, writer.WriteLock(), 1)
	assertPending(t, got, "writer's Acquire while a reader holds")

	proxy.Pause()
	awaitResult(t, got, "writer's Acquire after the reader's session expired")
	select {
	case <-lost:
	default:
		t.Fatal("reader's Lost() open after its session expired")
	}
	if stat, err := writerClient.Exists(ctx, readNode); err != nil || stat != nil {
		t.Fatalf("expired reader's node %s: stat %v, err %v; want it gone", readNode, stat, err)
	}
	proxy.Resume()
	zktest.Must(t, reader.ReadLock().Release(ctx))
	nodes := waitParticipants(t, writer.WriteLock(), 1)
	if nodes[0] != writer.WriteLock().LockPath() {
		t.Fatalf("participants %v; want only the writer's node", nodes)
	}
	zktest.Must(t, writer.WriteLock().Release(ctx))
}

func TestReadWriteLockBadInputFailsWithoutTraffic(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, proxy.Addr())
	proxy.ResetCounts()
	for _, tc := range []struct {
		name string
		c    *framework.Client
		path string
		opts []locks.MutexOption
		want string
	}{
		{"nil client", nil, "/rw", nil, "nil client"},
		{"relative path", c, "rw/x", nil, "rw/x"},
		{"driver", c, "/rw", []locks.MutexOption{locks.WithDriver(locks.UnfairLockInternalsDriver{})}, "WithDriver"},
	} {
		rw, err := locks.NewInterProcessReadWriteLock(tc.c, tc.path, tc.opts...)
		if rw != nil || !errors.Is(err, locks.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: NewInterProcessReadWriteLock = %v, %v; want an error matching ErrInvalidArgument naming %q", tc.name, rw, err, tc.want)
		}
	}
	for _, op := range []zktest.Op{zktest.OpCreate, zktest.OpCreate2, zktest.OpCreateContainer, zktest.OpGetChildren2} {
		if n := proxy.RequestCount(op); n != 0 {
			t.Errorf("bad input sent %d %v requests", n, op)
		}
	}
}

// The downgrade's read node and the write lock's Lost and fencing work as for
// a mutex; a downgrade's read hold keeps the write hold's token, so tokens
// never go back when a writer queued meanwhile holds next.
func TestReadWriteLockHoldsHaveFencingTokens(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	rw := built(locks.NewInterProcessReadWriteLock(zkclient.New(t, srv.ConnectString()), "/rw-fence"))
	zktest.Must(t, rw.WriteLock().Acquire(ctx))
	zktest.Must(t, rw.ReadLock().Acquire(ctx))
	w, r := rw.WriteLock().FencingToken(), rw.ReadLock().FencingToken()
	if w == 0 || r != w {
		t.Fatalf("tokens: write %d, read %d; want the downgrade to keep the write hold's token", w, r)
	}
	zktest.Must(t, rw.WriteLock().Release(ctx))
	select {
	case <-rw.ReadLock().Lost():
		t.Fatal("read hold's Lost() closed by releasing the write lock")
	default:
	}
	zktest.Must(t, rw.ReadLock().Release(ctx))
	// Reentrancy: the read lock nests within the same pair.
	zktest.Must(t, rw.ReadLock().Acquire(ctx))
	zktest.Must(t, rw.ReadLock().Acquire(ctx))
	nodes, err := rw.ReadLock().ParticipantNodes(ctx)
	zktest.Must(t, err)
	if len(nodes) != 1 {
		t.Fatalf("nested read holds made %d nodes, want 1", len(nodes))
	}
	zktest.Must(t, rw.ReadLock().Release(ctx))
	zktest.Must(t, rw.ReadLock().Release(ctx))
	if err := rw.ReadLock().Release(ctx); !errors.Is(err, locks.ErrNotOwner) {
		t.Fatalf("third Release = %v, want ErrNotOwner", err)
	}
}
