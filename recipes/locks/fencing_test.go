package locks_test

import (
	"testing"

	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/locktest"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// Fencing tokens strictly increase from one hold of a lock to the next, across
// hand-offs, drivers and downgrades.

func TestMutexFencingTokensIncreaseAcrossHandOffs(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := testCtx(t)
	for _, driver := range []locks.LockInternalsDriver{locks.StandardLockInternalsDriver{}, locks.UnfairLockInternalsDriver{}} {
		handles := []*locks.InterProcessMutex{
			built(locks.NewInterProcessMutex(locktest.NewClient(t, srv.ConnectString()), "/fence", locks.WithDriver(driver))),
			built(locks.NewInterProcessMutex(locktest.NewClient(t, srv.ConnectString()), "/fence", locks.WithDriver(driver))),
		}
		var last int64
		for i := 0; i < 100; i++ {
			m := handles[i%2]
			must(t, m.Acquire(ctx))
			tok := m.FencingToken()
			if tok <= last {
				t.Fatalf("%T: hold %d: token %d not above %d", driver, i, tok, last)
			}
			if again := m.FencingToken(); again != tok {
				t.Fatalf("%T: token changed within a hold: %d then %d", driver, tok, again)
			}
			last = tok
			must(t, m.Release(ctx))
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
	ctx := testCtx(t)
	const lockPath = "/review/rw-tokens"
	pair := built(locks.NewInterProcessReadWriteLock(locktest.NewClient(t, srv.ConnectString()), lockPath))
	foreign := built(locks.NewInterProcessReadWriteLock(locktest.NewClient(t, srv.ConnectString()), lockPath)).WriteLock()

	must(t, pair.WriteLock().Acquire(ctx))
	writeToken := pair.WriteLock().FencingToken()
	got := make(chan error, 1)
	go func() { got <- foreign.Acquire(ctx) }()
	waitParticipants(t, foreign, 2)
	must(t, pair.ReadLock().Acquire(ctx)) // the downgrade
	must(t, pair.WriteLock().Release(ctx))
	readToken := pair.ReadLock().FencingToken()
	must(t, pair.ReadLock().Release(ctx))
	awaitResult(t, got, "the foreign writer's Acquire")
	foreignToken := foreign.FencingToken()
	must(t, foreign.Release(ctx))

	if writeToken == 0 || readToken == 0 || foreignToken <= readToken || foreignToken <= writeToken {
		t.Fatalf("tokens in hold order: pair write %d, pair read (downgrade) %d, foreign write %d: not increasing",
			writeToken, readToken, foreignToken)
	}
}
