package interop

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

// library makes a mutex contender of one lock library (or configuration) on
// a lock path.
type library struct {
	name string
	make func(t *testing.T, ctx context.Context, path string) contender
}

// Column and row names of the exclusion table in docs/interop.md.
const (
	libZkcurator    = "zkcurator"
	libCurator      = "Curator"
	libGozk         = "go-zookeeper"
	libKazooExtra   = "Kazoo, extra_lock_patterns"
	libKazooDefault = "Kazoo, default"
	libKazooCurator = "Kazoo, Curator-named"
)

// overlapsByDesign lists the "holder/waiter" pairs whose waiter acquires
// beside the holder: the waiter's library cannot read the holder's node
// names. Every other ordered pair of different libraries excludes.
var overlapsByDesign = map[string]bool{
	// Kazoo's Lock with no extra_lock_patterns sees only "__lock__" nodes.
	libZkcurator + "/" + libKazooDefault:    true,
	libCurator + "/" + libKazooDefault:      true,
	libGozk + "/" + libKazooDefault:         true,
	libKazooCurator + "/" + libKazooDefault: true,
	// Curator cannot read Kazoo's own node names: it sorts such a child by its
	// whole name, after every "lock-<sequence>" key.
	libKazooExtra + "/" + libCurator:   true,
	libKazooDefault + "/" + libCurator: true,
}

// TestExclusionTable measures, for every ordered pair of mutex libraries on
// one lock path, whether a contender of the second waits while one of the
// first holds, and checks docs/interop.md's table (overlapsByDesign). A waiter
// that waits is seen watching the holder's node, then gets the lock once the
// holder releases.
func TestExclusionTable(t *testing.T) {
	srv := startZooKeeper(t)
	obs := newObserver(t, srv.ConnectString())
	java := StartHelper(t, srv.ConnectString())
	kazoo := StartKazooHelper(t, srv.ConnectString())
	gc := newGoClient(t, srv.ConnectString())

	kazooLock := func(patterns ...string) func(*testing.T, context.Context, string) contender {
		return func(t *testing.T, ctx context.Context, path string) contender {
			handle := fresh("k")
			if err := kazoo.Mutex(ctx, handle, path, patterns...); err != nil {
				t.Fatal(err)
			}
			return kazooContender(kazoo, handle)
		}
	}
	libs := []library{
		{libZkcurator, func(t *testing.T, _ context.Context, path string) contender {
			return goMutex(gc, fresh("go"), path)
		}},
		{libCurator, func(t *testing.T, ctx context.Context, path string) contender {
			return javaMutex(t, ctx, java, fresh("j"), path)
		}},
		{libGozk, func(t *testing.T, _ context.Context, path string) contender {
			return newGozkContender(t, srv.ConnectString(), fresh("gozk"), path)
		}},
		{libKazooExtra, kazooLock(KazooMutexPatterns...)},
		{libKazooDefault, kazooLock()},
		{libKazooCurator, func(t *testing.T, ctx context.Context, path string) contender {
			handle := fresh("kc")
			if err := kazoo.CuratorNamedLock(ctx, handle, path); err != nil {
				t.Fatal(err)
			}
			return kazooContender(kazoo, handle)
		}},
	}

	measured := map[string]outcome{}
	for i, holder := range libs {
		for j, waiter := range libs {
			if i == j {
				continue
			}
			pair := holder.name + "/" + waiter.name
			t.Run(strings.ReplaceAll(pair, " ", ""), func(t *testing.T) {
				ctx := testContext(t, 20*time.Second)
				path := fmt.Sprintf("/interop/table/%d-%d", i, j)
				got := holdThenContend(t, ctx, srv, obs, path, holder.make(t, ctx, path), waiter.make(t, ctx, path))
				measured[pair] = got
				want := waited
				if overlapsByDesign[pair] {
					want = overlapped
				}
				if got != want {
					t.Errorf("%s holds, %s: %v, want %v", holder.name, waiter.name, got, want)
				}
			})
		}
	}
	t.Logf("holder (row) and a waiter (column) on one path:\n%s", exclusionTable(libs, measured))
}

// holdThenContend lets holder acquire, then waiter try, and reports whether
// waiter waited; a waiter that waited must get the lock after the holder
// released. It leaves the lock path empty.
func holdThenContend(t *testing.T, ctx context.Context, srv *zktest.Server, obs *observer, path string, holder, waiter contender) outcome {
	t.Helper()
	acquire(t, ctx, holder)
	kids := obs.waitChildren(ctx, path, 1)
	got, p := secondWhileHeld(t, ctx, srv, path+"/"+kids[0], waiter)
	if got == waited {
		if p.finished() {
			t.Fatalf("%s acquired (err %v) while %s held the lock, after it watched the holder", waiter, p.err, holder)
		}
		rel := release(t, ctx, holder)
		if err := p.wait(ctx); err != nil {
			t.Fatal(err)
		}
		if !p.at.After(rel) {
			t.Fatalf("%s acquired at %v, before %s began releasing at %v", waiter, p.at, holder, rel)
		}
		release(t, ctx, waiter)
	} else {
		release(t, ctx, waiter)
		release(t, ctx, holder)
	}
	obs.waitChildren(ctx, path, 0)
	return got
}

// exclusionTable formats the measured outcomes as docs/interop.md's Markdown table.
func exclusionTable(libs []library, measured map[string]outcome) string {
	var b strings.Builder
	b.WriteString("| holds \\ waits |")
	for _, l := range libs {
		b.WriteString(" " + l.name + " |")
	}
	b.WriteString("\n|---|")
	b.WriteString(strings.Repeat("---|", len(libs)))
	for _, h := range libs {
		b.WriteString("\n| " + h.name + " |")
		for _, w := range libs {
			cell := "—"
			if o, ok := measured[h.name+"/"+w.name]; ok {
				cell = map[outcome]string{waited: "waits", overlapped: "**overlaps**"}[o]
			}
			b.WriteString(" " + cell + " |")
		}
	}
	return b.String()
}
