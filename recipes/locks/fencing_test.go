package locks_test

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Fencing tokens strictly increase from one hold of a lock to the next, across
// hand-offs, drivers and downgrades.

func TestMutexFencingTokensIncreaseAcrossHandOffs(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	for _, driver := range []locks.LockInternalsDriver{locks.StandardLockInternalsDriver{}, locks.UnfairLockInternalsDriver{}} {
		handles := []*locks.InterProcessMutex{
			built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), "/fence", locks.WithDriver(driver))),
			built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), "/fence", locks.WithDriver(driver))),
		}
		var last int64
		for i := 0; i < 100; i++ {
			m := handles[i%2]
			zktest.Must(t, m.Acquire(ctx))
			tok := m.FencingToken()
			if tok <= last {
				t.Fatalf("%T: hold %d: token %d not above %d", driver, i, tok, last)
			}
			if again := m.FencingToken(); again != tok {
				t.Fatalf("%T: token changed within a hold: %d then %d", driver, tok, again)
			}
			last = tok
			zktest.Must(t, m.Release(ctx))
			if m.FencingToken() != 0 {
				t.Fatalf("%T: FencingToken() non-zero after Release", driver)
			}
		}
	}
}

// Attack: fencing tokens of one read/write lock. A downgrade creates the read
// node after a foreign writer queued, with the write node's sequence: the
// reader's token (its node's czxid) is greater than the token of the writer
// that holds after it, so a store fenced by the lock's tokens sees them go
// back.
func TestReadWriteTokensNeverGoBackAcrossADowngrade(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	const lockPath = "/review/rw-tokens"
	pair := built(locks.NewInterProcessReadWriteLock(zkclient.New(t, srv.ConnectString()), lockPath))
	foreign := built(locks.NewInterProcessReadWriteLock(zkclient.New(t, srv.ConnectString()), lockPath)).WriteLock()

	zktest.Must(t, pair.WriteLock().Acquire(ctx))
	writeToken := pair.WriteLock().FencingToken()
	got := make(chan error, 1)
	go func() { got <- foreign.Acquire(ctx) }()
	waitParticipants(t, foreign, 2)
	zktest.Must(t, pair.ReadLock().Acquire(ctx)) // the downgrade
	zktest.Must(t, pair.WriteLock().Release(ctx))
	readToken := pair.ReadLock().FencingToken()
	zktest.Must(t, pair.ReadLock().Release(ctx))
	awaitResult(t, got, "the foreign writer's Acquire")
	foreignToken := foreign.FencingToken()
	zktest.Must(t, foreign.Release(ctx))

	if writeToken == 0 || readToken == 0 || foreignToken <= readToken || foreignToken <= writeToken {
		t.Fatalf("tokens in hold order: pair write %d, pair read (downgrade) %d, foreign write %d: not increasing",
			writeToken, readToken, foreignToken)
	}
}

// FencingToken is read when the lock is taken: it makes no request, even
// with the connection cut, and it is the czxid of the node that marks the
// hold (the holder node for the unfair driver).
func TestFencingTokenIsReadWhenTheLockIsTaken(t *testing.T) {
	srv := zktest.StartServer(t, zktest.WithExtendedTypes())
	ctx := zktest.TestContext(t)
	admin := zkclient.New(t, srv.ConnectString())
	ttl, err := locks.NewPersistentTTLLockInternalsDriver(time.Minute)
	zktest.Must(t, err)
	for name, tc := range map[string]struct {
		driver locks.LockInternalsDriver
		fence  func(m *locks.InterProcessMutex) string
	}{
		"standard": {locks.StandardLockInternalsDriver{}, (*locks.InterProcessMutex).LockPath},
		"ttl":      {ttl, (*locks.InterProcessMutex).LockPath},
		"unfair": {locks.UnfairLockInternalsDriver{}, func(m *locks.InterProcessMutex) string {
			return path.Dir(m.LockPath()) + "/" + locks.UnfairHolderNodeName
		}},
	} {
		proxy := zktest.StartProxy(t, srv.ConnectString())
		m := built(locks.NewInterProcessMutex(zkclient.New(t, proxy.Addr()), "/fence-taken/"+name, locks.WithDriver(tc.driver)))
		zktest.Must(t, m.Acquire(ctx))
		_, stat, err := admin.GetData(ctx, tc.fence(m))
		zktest.Must(t, err)
		proxy.Pause()
		proxy.ResetCounts()
		if got := m.FencingToken(); got != stat.Czxid {
			t.Errorf("%s: FencingToken() = %d; want the czxid of %s, %d", name, got, tc.fence(m), stat.Czxid)
		}
		if n := proxy.RequestTotal(); n != 0 {
			t.Errorf("%s: FencingToken() sent %d requests; want none", name, n)
		}
		proxy.Resume()
		zktest.Must(t, m.Release(ctx))
	}
}

// A semaphore's lease carries the czxid of its node as a fencing token,
// read when it was granted: tokens grow from one lease holder to the next.
func TestLeaseFencingTokensGrowFromHolderToHolder(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	admin := zkclient.New(t, srv.ConnectString())
	sems := []*locks.InterProcessSemaphoreV2{
		built(locks.NewInterProcessSemaphoreV2(zkclient.New(t, srv.ConnectString()), "/fence-lease", 1)),
		built(locks.NewInterProcessSemaphoreV2(zkclient.New(t, srv.ConnectString()), "/fence-lease", 1)),
	}
	var last int64
	for i := range 10 {
		lease, err := sems[i%2].Acquire(ctx)
		zktest.Must(t, err)
		tok := lease.FencingToken()
		stat, err := admin.Exists(ctx, lease.Path())
		zktest.Must(t, err)
		switch {
		case stat == nil || tok != stat.Czxid:
			t.Fatalf("lease %d: token %d; want the czxid of %s (%v)", i, tok, lease.Path(), stat)
		case tok <= last:
			t.Fatalf("lease %d: token %d not above the previous holder's %d", i, tok, last)
		}
		last = tok
		zktest.Must(t, lease.Close(ctx))
	}
	if tok := (*locks.Lease)(nil).FencingToken(); tok != 0 {
		t.Errorf("a nil lease's token is %d; want 0", tok)
	}
}

// A nil option is refused by the constructor with an error that matches
// ErrInvalidArgument and names it, rather than a panic.
func TestNilOptionIsRefused(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	for name, build := range map[string]func() error{
		"mutex": func() error { _, err := locks.NewInterProcessMutex(c, "/nil-option", nil); return err },
		"read/write lock": func() error {
			_, err := locks.NewInterProcessReadWriteLock(c, "/nil-option", locks.WithLockData(nil), nil)
			return err
		},
		"semaphore":  func() error { _, err := locks.NewInterProcessSemaphoreV2(c, "/nil-option", 1, nil); return err },
		"ttl driver": func() error { _, err := locks.NewPersistentTTLLockInternalsDriver(time.Second, nil); return err },
	} {
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			err = build()
		}()
		if !errors.Is(err, locks.ErrInvalidArgument) || !strings.Contains(err.Error(), "is nil") || !strings.Contains(err.Error(), "option") {
			t.Errorf("%s with a nil option: %v; want an error matching ErrInvalidArgument naming the nil option", name, err)
		}
	}
}
