package interop

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/protection"
)

// TestMutexAcrossLanguages lines up zkcurator and Curator mutex contenders,
// alternating languages, behind a holder of one language and then the other:
// each waits for the previous to release, they get the lock in arrival order,
// both libraries list the same participants in the same order, and each accepts
// the other's protected node names.
func TestMutexAcrossLanguages(t *testing.T) {
	srv := startZooKeeper(t)
	obs := newObserver(t, srv.ConnectString())
	gc := newGoClient(t, srv.ConnectString())
	java := StartHelper(t, srv.ConnectString())

	for _, goFirst := range []bool{true, false} {
		name := firstName(goFirst)
		t.Run(name, func(t *testing.T) {
			ctx := testContext(t, 40*time.Second)
			path := "/interop/mutex/" + name
			gos := []contender{goMutex(gc, "go-0", path), goMutex(gc, "go-1", path)}
			javas := []contender{javaMutex(t, ctx, java, name+"-0", path), javaMutex(t, ctx, java, name+"-1", path)}
			if !goFirst {
				gos, javas = javas, gos
			}
			order := []contender{gos[0], javas[0], gos[1], javas[1]}

			ps := lineUp(t, ctx, obs, path, order)
			kids := obs.waitChildren(ctx, path, len(order))
			want := make([]string, len(kids))
			for i, k := range kids {
				want[i] = path + "/" + k
			}
			for _, c := range order[:2] {
				got, err := c.participants(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%s lists participants %q, want %q", c, got, want)
				}
			}
			checkProtectedNames(t, ctx, java, kids, "lock-")

			holds := handOver(t, ctx, order, ps, want)
			checkExclusive(t, holds)
			obs.waitChildren(ctx, path, 0)
		})
	}
}

// firstName names a subtest by the language that goes first.
func firstName(goFirst bool) string {
	if goFirst {
		return "GoFirst"
	}
	return "JavaFirst"
}

// lineUp lets order[0] acquire, then starts the others one at a time, each once
// the previous one's node exists, so that their arrival order is order.
func lineUp(t *testing.T, ctx context.Context, obs *observer, path string, order []contender) []*pending {
	t.Helper()
	ps := make([]*pending, len(order))
	ps[0] = acquire(t, ctx, order[0])
	for i := 1; i < len(order); i++ {
		ps[i] = order[i].start(ctx)
		obs.waitChildren(ctx, path, i+1)
	}
	return ps
}

// handOver releases the holder order[0] and then each next holder in turn. It
// checks that nobody acquires out of turn, that each acquires after the
// previous began releasing (and, when nodes is given, with its node nodes[i]),
// and returns the holds.
func handOver(t *testing.T, ctx context.Context, order []contender, ps []*pending, nodes []string) []hold {
	t.Helper()
	var holds []hold
	for i := range order {
		if nodes != nil && ps[i].node != nodes[i] {
			t.Fatalf("%s acquired with node %s, want %s: the lock was not granted in arrival order", order[i], ps[i].node, nodes[i])
		}
		for j := i + 1; j < len(order); j++ {
			if ps[j].finished() {
				t.Fatalf("%s acquired (err %v) while %s held the lock", order[j], ps[j].err, order[i])
			}
		}
		rel := release(t, ctx, order[i])
		holds = append(holds, hold{owner: order[i].String(), from: ps[i].at, to: rel})
		if i+1 < len(order) {
			if err := ps[i+1].wait(ctx); err != nil {
				t.Fatal(err)
			}
			if !ps[i+1].at.After(rel) {
				t.Fatalf("%s acquired at %v, before %s began releasing at %v", order[i+1], ps[i+1].at, order[i], rel)
			}
		}
	}
	return holds
}

var uuidPrefix = `^_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-`

// checkProtectedNames checks lock node names (of both languages) against
// Curator's ProtectedUtils.isProtectedZNode, zkcurator's protection package and
// the exact format _c_<uuid>-<lockName><10 digits>.
func checkProtectedNames(t *testing.T, ctx context.Context, java *Helper, names []string, lockName string) {
	t.Helper()
	format := regexp.MustCompile(uuidPrefix + regexp.QuoteMeta(lockName) + `[0-9]{10}$`)
	accepted, err := java.IsProtectedZNode(ctx, names...)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		if !accepted[i] {
			t.Errorf("Curator's ProtectedUtils.isProtectedZNode rejects %q", n)
		}
		if !protection.IsProtected(n) {
			t.Errorf("protection.IsProtected rejects %q", n)
		}
		if !format.MatchString(n) {
			t.Errorf("node name %q does not match %s", n, format)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

// fresh returns handle names unique within a test binary.
func fresh(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, handleSeq.Add(1))
}
