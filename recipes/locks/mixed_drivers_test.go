package locks_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/locktest"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Fair and unfair contenders on one path, as during a rolling switch from
// one driver to the other, never hold at once, whichever came first.
func TestFairAndUnfairDriversOnOnePathExcludeEachOther(t *testing.T) {
	srv := zktest.StartServer(t)
	fair := locks.WithDriver(locks.StandardLockInternalsDriver{})
	unfair := locks.WithDriver(locks.UnfairLockInternalsDriver{})
	for _, tc := range []struct {
		name          string
		first, second locks.MutexOption
	}{
		{"unfair holds, fair waits", unfair, fair},
		{"fair holds, unfair waits", fair, unfair},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := zktest.TestContext(t)
			path := "/mixed/" + tc.name
			first := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), path, tc.first))
			second := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), path, tc.second))
			zktest.Must(t, first.Acquire(ctx))
			assertWaits(t, ctx, second, "the second driver's contender, while the first one's holds")
			got := make(chan error, 1)
			go func() { got <- second.Acquire(ctx) }()
			waitParticipants(t, first, 2)
			assertPending(t, got, "the second contender")
			zktest.Must(t, first.Release(ctx))
			awaitResult(t, got, "the second contender once the first released")
			zktest.Must(t, second.Release(ctx))
		})
	}
}

// assertWaits fails the test if m gets the lock within half a second.
func assertWaits(t *testing.T, ctx context.Context, m *locks.InterProcessMutex, who string) {
	t.Helper()
	held, err := m.TryAcquire(ctx, 500*time.Millisecond)
	zktest.Must(t, err)
	if held {
		_ = m.Release(ctx)
		t.Fatalf("%s holds beside the holder", who)
	}
}

// Several fair and unfair contenders hammer one path: never two holders.
func TestFairAndUnfairDriversUnderContention(t *testing.T) {
	const perDriver, rounds = 3, 12
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	var mutexes []*locks.InterProcessMutex
	for i := range 2 * perDriver {
		driver := locks.LockInternalsDriver(locks.StandardLockInternalsDriver{})
		if i%2 == 1 {
			driver = locks.UnfairLockInternalsDriver{}
		}
		c := zkclient.New(t, srv.ConnectString())
		mutexes = append(mutexes, built(locks.NewInterProcessMutex(c, "/mixed/contention", locks.WithDriver(driver))))
	}
	var check locktest.Checker
	zktest.Must(t, locktest.Contend(ctx, mutexes, rounds, 2*time.Millisecond, &check))
	if v := check.Violations(); v != 0 {
		t.Fatalf("%d overlapping holds of fair and unfair contenders", v)
	}
	if n := check.Entries(); n != 2*perDriver*rounds {
		t.Fatalf("%d holds; want %d", n, 2*perDriver*rounds)
	}
}

// seqDriver is the standard driver with a hand-made sequence: its node is a
// plain ephemeral one named as the server would name the given sequence.
type seqDriver struct {
	locks.StandardLockInternalsDriver
	seq int32
}

func (d seqDriver) CreatesTheLock(ctx context.Context, c *framework.Client, path string, data []byte) (string, error) {
	return c.Create(ctx, fmt.Sprintf("%s%010d", path, d.seq), data,
		framework.WithMode(framework.Ephemeral), framework.WithProtection(), framework.CreatingParentContainersIfNeeded())
}

// The server's sequence wraps from 2147483647 to -2147483648: a contender
// created after the wrap queues behind the holder created before it.
func TestContenderPastTheSequenceWrapQueuesBehindTheHolder(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	holder := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), "/mixed/wrap",
		locks.WithDriver(seqDriver{seq: 2147483647})))
	newcomer := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), "/mixed/wrap",
		locks.WithDriver(seqDriver{seq: -2147483648})))
	zktest.Must(t, holder.Acquire(ctx))
	assertWaits(t, ctx, newcomer, "a contender past the sequence wrap")
	got := make(chan error, 1)
	go func() { got <- newcomer.Acquire(ctx) }()
	nodes := waitParticipants(t, holder, 2)
	if nodes[0] != holder.LockPath() {
		t.Fatalf("participants %v: the holder is not first", nodes)
	}
	zktest.Must(t, holder.Release(ctx))
	awaitResult(t, got, "the newcomer once the holder released")
	zktest.Must(t, newcomer.Release(ctx))
}
