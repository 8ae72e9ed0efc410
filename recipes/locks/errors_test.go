package locks_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Every sentinel error of the package says where it comes from.
func TestSentinelErrorsCarryThePackagePrefix(t *testing.T) {
	for _, err := range []error{locks.ErrNotOwner, locks.ErrUpgrade, locks.ErrLockLost, locks.ErrInvalidArgument, locks.ErrNotContender} {
		if !strings.HasPrefix(err.Error(), "locks: ") {
			t.Errorf("sentinel error %q does not start with %q", err, "locks: ")
		}
	}
}

// The root "/" is no lock or semaphore path: every lock on it reports an
// error matching ErrInvalidArgument that names it, before any request.
func TestRootIsRefusedAsALockPath(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, proxy.Addr())
	ctx := zktest.TestContext(t)
	proxy.ResetCounts()
	for name, build := range map[string]func() error{
		"mutex": func() error { _, err := locks.NewInterProcessMutex(c, "/"); return err },
		"unfair mutex": func() error {
			_, err := locks.NewInterProcessMutex(c, "/", locks.WithDriver(locks.UnfairLockInternalsDriver{}))
			return err
		},
		"read/write lock": func() error { _, err := locks.NewInterProcessReadWriteLock(c, "/"); return err },
		"semaphore mutex": func() error { _, err := locks.NewInterProcessSemaphoreMutex(c, "/"); return err },
		"semaphore":       func() error { _, err := locks.NewInterProcessSemaphoreV2(c, "/", 1); return err },
	} {
		if err := build(); !errors.Is(err, locks.ErrInvalidArgument) || !strings.Contains(err.Error(), `"/"`) {
			t.Errorf("%s on /: %v; want an error matching ErrInvalidArgument naming \"/\"", name, err)
		}
	}
	if _, err := locks.MutexHolder(ctx, c, "/"); !errors.Is(err, locks.ErrInvalidArgument) {
		t.Errorf("MutexHolder(/) = %v; want an error matching ErrInvalidArgument", err)
	}
	if n := proxy.RequestTotal(); n != 0 {
		t.Errorf("locks on / sent %d requests", n)
	}
}

// Bad input to any lock matches ErrInvalidArgument.
func TestBadInputMatchesErrInvalidArgument(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	ctx := context.Background()
	second := func(_ any, err error) error { return err }
	ttl := func(ttl time.Duration, opts ...locks.TTLDriverOption) error {
		return second(locks.NewPersistentTTLLockInternalsDriver(ttl, opts...))
	}
	for name, err := range map[string]error{
		"nil client":         second(locks.NewInterProcessMutex(nil, "/a")),
		"relative path":      second(locks.NewInterProcessMutex(c, "a")),
		"nil driver":         second(locks.NewInterProcessMutex(c, "/a", locks.WithDriver(nil))),
		"semaphore limit":    second(locks.NewInterProcessSemaphoreV2(c, "/a", 0)),
		"nil multi-lock":     second(locks.NewInterProcessMultiLock(nil)),
		"nil lock in multi":  second(locks.NewInterProcessMultiLock(built(locks.NewInterProcessMutex(c, "/a")), (*locks.InterProcessMutex)(nil))),
		"TTL of zero":        ttl(0),
		"TTL in µs":          ttl(1500 * time.Microsecond),
		"TTL, bad id":        ttl(time.Second, locks.WithProtectedID("not-a-uuid")),
		"negative wait":      func() error { _, err := built(locks.NewInterProcessMutex(c, "/a")).TryAcquire(ctx, -1); return err }(),
		"revoke a bad path":  locks.AttemptRevoke(ctx, c, "a"),
		"revoke, nil client": locks.AttemptRevoke(ctx, nil, "/a"),
	} {
		if !errors.Is(err, locks.ErrInvalidArgument) {
			t.Errorf("%s: %v; want an error matching ErrInvalidArgument", name, err)
		}
	}
}

// assertPrefixOnce fails the test unless the prefix "locks: " starts at
// most one part of each line of err's message (a join has one line per
// error); a path ending in "/locks" is no prefix.
func assertPrefixOnce(tb testing.TB, err error) {
	tb.Helper()
	if err == nil {
		return
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		if n := strings.Count(": "+line, ": locks: "); n > 1 {
			tb.Errorf("error %q carries the prefix %q %d times", line, "locks: ", n)
		}
	}
}

// The errors of the fault paths carry the package's prefix once, however
// deep the wrapping. (receive checks every error the other tests await.)
func TestErrorsCarryThePrefixOnce(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	admin := zkclient.New(t, srv.ConnectString())
	closed := zkclient.New(t, srv.ConnectString())
	zktest.Must(t, closed.Close())
	errs := map[string]error{}

	rw := built(locks.NewInterProcessReadWriteLock(zkclient.New(t, srv.ConnectString()), "/prefix/rw"))
	zktest.Must(t, rw.WriteLock().Acquire(ctx))
	zktest.Must(t, admin.Delete(ctx, rw.WriteLock().LockPath()))
	errs["downgrade of a deleted write node"] = rw.ReadLock().Acquire(ctx)
	zktest.Must(t, rw.WriteLock().Release(ctx))

	errs["mutex on a closed client"] = built(locks.NewInterProcessMutex(closed, "/prefix/mutex")).Acquire(ctx)
	_, errs["semaphore on a closed client"] = built(locks.NewInterProcessSemaphoreV2(closed, "/prefix/sem", 2)).Acquire(ctx)
	errs["semaphore mutex on a closed client"] = built(locks.NewInterProcessSemaphoreMutex(closed, "/prefix/semmutex")).Acquire(ctx)
	errs["multi-lock on a closed client"] = built(locks.NewInterProcessMultiLock(
		built(locks.NewInterProcessMutex(admin, "/prefix/multi/a")),
		built(locks.NewInterProcessSemaphoreMutex(closed, "/prefix/multi/b")),
	)).Acquire(ctx)
	_, errs["unfair driver with bad digits"] = locks.NewInterProcessMutex(admin, "/prefix/unfair",
		locks.WithDriver(locks.UnfairLockInternalsDriver{SuffixDigits: 99}))
	errs["release when not held"] = built(locks.NewInterProcessMutex(admin, "/prefix/none")).Release(ctx)
	errs["revoke on a closed client"] = locks.AttemptRevoke(ctx, closed, "/prefix/"+protection.Name(protection.NewID(), "lock-0000000001"))

	// An unfair release's error names the node once (Release names it; the
	// failed request names the holder node it read).
	closing := zkclient.New(t, srv.ConnectString())
	unfair := built(locks.NewInterProcessMutex(closing, "/prefix/unfair-release", locks.WithDriver(locks.UnfairLockInternalsDriver{})))
	zktest.Must(t, unfair.Acquire(ctx))
	node := unfair.LockPath()
	zktest.Must(t, closing.Close())
	errs["unfair release on a closed client"] = unfair.Release(ctx)
	if err := errs["unfair release on a closed client"]; err != nil && strings.Count(err.Error(), node) != 1 {
		t.Errorf("the release error names %s %d times, want once: %v", node, strings.Count(err.Error(), node), err)
	}

	for name, err := range errs {
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if !strings.HasPrefix(err.Error(), "locks: ") {
			t.Errorf("%s: %q does not start with %q", name, err, "locks: ")
		}
		assertPrefixOnce(t, err)
	}
}
