package interop

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
)

// TestReadWriteLockAcrossLanguages checks InterProcessReadWriteLock between
// zkcurator and Curator: readers of both languages share, a writer of either
// language excludes readers of the other (and waits for them), a waiting
// writer is not overtaken by a reader of the other language that came later,
// and a Go downgrade (write, then read, then release write) keeps a waiting
// Curator writer out until the read lock is released.
func TestReadWriteLockAcrossLanguages(t *testing.T) {
	srv := startZooKeeper(t)
	obs := newObserver(t, srv.ConnectString())
	gc := newGoClient(t, srv.ConnectString())
	java := StartHelper(t, srv.ConnectString())

	// side returns a new read/write lock on path in Go or in Java.
	side := func(t *testing.T, ctx context.Context, inGo bool, path string) (read, write contender) {
		if inGo {
			r, w := goRW(gc, fresh("go"), path)
			return r, w
		}
		r, w := javaRW(t, ctx, java, fresh("rw"), path)
		return r, w
	}

	for _, goFirst := range []bool{true, false} {
		name := firstName(goFirst)

		t.Run("ReadersShare/"+name, func(t *testing.T) {
			ctx := testContext(t, 30*time.Second)
			path := "/interop/rw/share/" + name
			r1, _ := side(t, ctx, goFirst, path)
			r2, _ := side(t, ctx, !goFirst, path)
			p1 := acquire(t, ctx, r1)
			p2 := acquire(t, ctx, r2) // would time out if the first reader excluded it
			rel2 := release(t, ctx, r2)
			rel1 := release(t, ctx, r1)
			holds := []hold{{r1.String(), p1.at, rel1}, {r2.String(), p2.at, rel2}}
			if peak, _, _ := maxConcurrent(holds); peak != 2 {
				t.Fatalf("readers %s and %s did not hold the lock together: %v", r1, r2, holds)
			}
			checkProtectedNames(t, ctx, java, []string{base(p1.node), base(p2.node)}, "__READ__")
			obs.waitChildren(ctx, path, 0)
		})

		t.Run("WriterExcludesReaders/"+name, func(t *testing.T) {
			ctx := testContext(t, 30*time.Second)
			path := "/interop/rw/exclude/" + name
			_, w := side(t, ctx, goFirst, path)
			r, _ := side(t, ctx, !goFirst, path)
			_, w2 := side(t, ctx, goFirst, path)

			pw := acquire(t, ctx, w)
			pr := r.start(ctx)
			obs.waitChildren(ctx, path, 2)
			checkProtectedNames(t, ctx, java, []string{base(pw.node)}, "__WRIT__")
			holds := handOver(t, ctx, []contender{w, r}, []*pending{pw, pr}, nil)

			// And the other way: a writer waits for the reader of the other language.
			pr = acquire(t, ctx, r)
			pw2 := w2.start(ctx)
			obs.waitChildren(ctx, path, 2)
			holds = append(holds, handOver(t, ctx, []contender{r, w2}, []*pending{pr, pw2}, nil)...)
			checkExclusive(t, holds)
			obs.waitChildren(ctx, path, 0)
		})

		t.Run("WaitingWriterNotOvertaken/"+name, func(t *testing.T) {
			ctx := testContext(t, 30*time.Second)
			path := "/interop/rw/overtake/" + name
			r1, _ := side(t, ctx, !goFirst, path)
			_, w := side(t, ctx, goFirst, path)
			r2, _ := side(t, ctx, !goFirst, path)
			order := []contender{r1, w, r2}
			ps := lineUp(t, ctx, obs, path, order)
			holds := handOver(t, ctx, order, ps, nil)
			checkExclusive(t, holds)
			obs.waitChildren(ctx, path, 0)
		})
	}

	// Only the Go side downgrades here: Curator 5.4.0's own downgrade gives its
	// read node a new sequence, behind a writer already waiting, which then gets
	// the write lock while the read lock is still held (CURATOR-621, fixed in
	// 5.5.0), whatever the waiting writer's language.
	t.Run("GoDowngradeKeepsCuratorWriterOut", func(t *testing.T) {
		ctx := testContext(t, 30*time.Second)
		const path = "/interop/rw/downgrade"
		goRead, goWrite := goRW(gc, "go-downgrader", path)
		_, javaWrite := javaRW(t, ctx, java, fresh("rw"), path)

		pw := acquire(t, ctx, goWrite)
		waiting := javaWrite.start(ctx)
		obs.waitChildren(ctx, path, 2)
		pr := acquire(t, ctx, goRead) // granted at once: this pair holds the write lock
		obs.waitChildren(ctx, path, 3)
		if got, want := sequence(pr.node), sequence(pw.node); got != want {
			t.Fatalf("downgrade read node %s has sequence %s, want the write node's %s", pr.node, got, want)
		}
		checkProtectedNames(t, ctx, java, []string{base(pr.node)}, "__READ__")

		release(t, ctx, goWrite)
		obs.waitChildren(ctx, path, 2)
		if waiting.finished() {
			t.Fatalf("Curator writer acquired (err %v) while the Go downgrader held the read lock", waiting.err)
		}
		relRead := release(t, ctx, goRead)
		if err := waiting.wait(ctx); err != nil {
			t.Fatal(err)
		}
		if !waiting.at.After(relRead) {
			t.Fatalf("Curator writer acquired at %v, before the Go downgrader began releasing its read lock at %v", waiting.at, relRead)
		}
		relWrite := release(t, ctx, javaWrite)
		checkExclusive(t, []hold{{goRead.String(), pw.at, relRead}, {javaWrite.String(), waiting.at, relWrite}})
		obs.waitChildren(ctx, path, 0)
	})
}

// base returns the last element of a node path.
func base(path string) string {
	return path[strings.LastIndexByte(path, '/')+1:]
}

// goRW returns the sides of a zkcurator InterProcessReadWriteLock on path.
func goRW(c *framework.Client, name, path string) (read, write *goContender) {
	rw := built(locks.NewInterProcessReadWriteLock(c, path))
	return &goContender{name: name + "/read", m: rw.ReadLock()}, &goContender{name: name + "/write", m: rw.WriteLock()}
}
