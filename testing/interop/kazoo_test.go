package interop

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
)

// goNamedMutex is a zkcurator mutex whose node data is its name, which is
// what Kazoo's contenders() reports for it.
func goNamedMutex(c *framework.Client, name, path string) *goContender {
	return &goContender{name: name, m: built(locks.NewInterProcessMutex(c, path, locks.WithLockData([]byte(name))))}
}

// kazooMutex defines a Kazoo Lock that sees zkcurator's nodes (extra_lock_patterns
// KazooMutexPatterns) in k.
func kazooMutex(t *testing.T, ctx context.Context, k *KazooHelper, handle, path string) *javaContender {
	t.Helper()
	if err := k.Mutex(ctx, handle, path, KazooMutexPatterns...); err != nil {
		t.Fatal(err)
	}
	return kazooContender(k, handle)
}

// TestKazooMutexAcrossLanguages lines up zkcurator and Kazoo mutex contenders,
// alternating, behind a holder of one library and then the other: each waits
// for the previous to release, they hold in arrival order, and both libraries
// list the contenders in that order.
func TestKazooMutexAcrossLanguages(t *testing.T) {
	srv := startZooKeeper(t)
	obs := newObserver(t, srv.ConnectString())
	gc := newGoClient(t, srv.ConnectString())
	kazoo := StartKazooHelper(t, srv.ConnectString())

	for _, goFirst := range []bool{true, false} {
		name := "KazooFirst"
		if goFirst {
			name = "GoFirst"
		}
		t.Run(name, func(t *testing.T) {
			ctx := testContext(t, 30*time.Second)
			path := "/interop/kazoo-mutex/" + name
			gos := []contender{goNamedMutex(gc, fresh("go"), path), goNamedMutex(gc, fresh("go"), path)}
			pys := []contender{kazooMutex(t, ctx, kazoo, fresh("kazoo"), path), kazooMutex(t, ctx, kazoo, fresh("kazoo"), path)}
			if !goFirst {
				gos, pys = pys, gos
			}
			order := []contender{gos[0], pys[0], gos[1], pys[1]}

			ps := lineUp(t, ctx, obs, path, order)
			kids := obs.waitChildren(ctx, path, len(order))
			want := make([]string, len(kids))
			names := make([]string, len(order))
			for i, k := range kids {
				want[i] = path + "/" + k
				names[i] = order[i].String()
				if p, ok := order[i].(*javaContender); ok {
					names[i] = p.target // Kazoo's identifier is the handle
				}
			}
			var goSide contender
			var kazooSide *javaContender
			for _, c := range order {
				switch c := c.(type) {
				case *goContender:
					goSide = c
				case *javaContender:
					kazooSide = c
				}
			}
			got, err := goSide.participants(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("zkcurator lists participants %q, want %q", got, want)
			}
			seen, err := kazoo.Contenders(ctx, kazooSide.target)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(seen, names) {
				t.Fatalf("Kazoo's contenders() = %q, want %q", seen, names)
			}

			holds := handOver(t, ctx, order, ps, want)
			checkExclusive(t, holds)
			obs.waitChildren(ctx, path, 0)
		})
	}
}

// TestKazooReadWriteLock holds one side of a lock with one library and tries
// the other library's read and write locks: readers share, a writer excludes
// everyone, whichever library holds. Kazoo sees zkcurator's nodes only with
// extra_lock_patterns (KazooReadPatterns, KazooWritePatterns); without them
// it overlaps our writer.
func TestKazooReadWriteLock(t *testing.T) {
	srv := startZooKeeper(t)
	obs := newObserver(t, srv.ConnectString())
	gc := newGoClient(t, srv.ConnectString())
	kazoo := StartKazooHelper(t, srv.ConnectString())

	type side func(t *testing.T, ctx context.Context, path string) contender
	goRead := func(t *testing.T, _ context.Context, path string) contender {
		return &goContender{name: fresh("go-read"), m: built(locks.NewInterProcessReadWriteLock(gc, path)).ReadLock()}
	}
	goWrite := func(t *testing.T, _ context.Context, path string) contender {
		return &goContender{name: fresh("go-write"), m: built(locks.NewInterProcessReadWriteLock(gc, path)).WriteLock()}
	}
	kazooSide := func(define func(context.Context, string, string, ...string) error, patterns ...string) side {
		return func(t *testing.T, ctx context.Context, path string) contender {
			handle := fresh("kazoo")
			if err := define(ctx, handle, path, patterns...); err != nil {
				t.Fatal(err)
			}
			return kazooContender(kazoo, handle)
		}
	}
	kazooRead := kazooSide(kazoo.ReadLock, KazooReadPatterns...)
	kazooWrite := kazooSide(kazoo.WriteLock, KazooWritePatterns...)

	for _, tc := range []struct {
		name           string
		holder, second side
		want           outcome
	}{
		{"KazooWriterHolds/GoReaderWaits", kazooWrite, goRead, waited},
		{"KazooWriterHolds/GoWriterWaits", kazooWrite, goWrite, waited},
		{"KazooReaderHolds/GoReaderShares", kazooRead, goRead, overlapped},
		{"KazooReaderHolds/GoWriterWaits", kazooRead, goWrite, waited},
		{"GoWriterHolds/KazooReaderWaits", goWrite, kazooRead, waited},
		{"GoWriterHolds/KazooWriterWaits", goWrite, kazooWrite, waited},
		{"GoReaderHolds/KazooReaderShares", goRead, kazooRead, overlapped},
		{"GoReaderHolds/KazooWriterWaits", goRead, kazooWrite, waited},
		// Without extra_lock_patterns Kazoo does not see our nodes.
		{"GoWriterHolds/DefaultKazooReaderOverlaps", goWrite, kazooSide(kazoo.ReadLock), overlapped},
		{"GoReaderHolds/DefaultKazooWriterOverlaps", goRead, kazooSide(kazoo.WriteLock), overlapped},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testContext(t, 20*time.Second)
			path := "/interop/kazoo-rw/" + fresh("case")
			if got := holdThenContend(t, ctx, srv, obs, path, tc.holder(t, ctx, path), tc.second(t, ctx, path)); got != tc.want {
				t.Fatalf("second contender: %v, want %v", got, tc.want)
			}
		})
	}

	// A Kazoo writer that waits behind our reader is not overtaken by a later
	// reader of ours, and holds before it.
	t.Run("WaitingKazooWriterIsNotOvertaken", func(t *testing.T) {
		ctx := testContext(t, 20*time.Second)
		path := "/interop/kazoo-rw/fair"
		r1, w, r2 := goRead(t, ctx, path), kazooWrite(t, ctx, path), goRead(t, ctx, path)
		ps := lineUp(t, ctx, obs, path, []contender{r1, w, r2})
		holds := handOver(t, ctx, []contender{r1, w, r2}, ps, nil)
		checkExclusive(t, holds)
		obs.waitChildren(ctx, path, 0)
	})
}

// TestKazooKilledHolder kills the process holding the lock with SIGKILL, so
// that nothing is released: the waiter of the other library gets the lock
// once the dead holder's session expires.
func TestKazooKilledHolder(t *testing.T) {
	srv := startZooKeeper(t)
	obs := newObserver(t, srv.ConnectString())

	t.Run("KazooHolderKilled", func(t *testing.T) {
		ctx := testContext(t, 30*time.Second)
		const path = "/interop/kazoo-killed/kazoo-holder"
		victim := StartKazooHelper(t, srv.ConnectString(), WithName("kazoo-victim"), WithSessionTimeout(goSessionTimeout))
		holder := kazooMutex(t, ctx, victim, "victim", path)
		acquire(t, ctx, holder)
		waiter := goMutex(newGoClient(t, srv.ConnectString()), "go-waiter", path)
		waiting := waiter.start(ctx)
		obs.waitChildren(ctx, path, 2)

		killed := now()
		if err := victim.Kill(); err != nil {
			t.Fatal(err)
		}
		awaitTakeover(t, ctx, waiting, killed, victim.SessionTimeout(), "Go waiter", "Kazoo holder")
		release(t, ctx, waiter)
		obs.waitChildren(ctx, path, 0)
	})

	t.Run("GoHolderKilled", func(t *testing.T) {
		const path = "/interop/kazoo-killed/go-holder"
		goHolderKilled(t, srv.ConnectString(), obs, path, "Kazoo waiter", func(ctx context.Context) contender {
			return kazooMutex(t, ctx, StartKazooHelper(t, srv.ConnectString()), "waiter", path)
		})
	})
}

// TestKazooMissingIsAClearFailure: without Python, or with a Python that cannot
// import Kazoo (-S leaves Debian's dist-packages off the path), starting the
// helper fails with what to install, not a skip.
func TestKazooMissingIsAClearFailure(t *testing.T) {
	srv := startZooKeeper(t)
	ctx := testContext(t, 20*time.Second)
	for _, tc := range []struct {
		name, python string
		flags        []string
		want         []string
	}{
		{"NoPython", "/nonexistent/python3", []string{"-u"}, []string{"/nonexistent/python3", "install-zookeeper.sh"}},
		{"NoKazoo", PythonPath, []string{"-u", "-S"}, []string{"kazoo is not importable", "python3-kazoo"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := startKazoo(ctx, tc.python, tc.flags, srv.ConnectString(), nil)
			if err == nil {
				k.Close()
				t.Fatal("the helper started")
			}
			t.Logf("error: %v", err)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}
