package interop

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/locks"
)

// TestSemaphoreV2AcrossLanguages lets zkcurator and Curator contenders take
// leases of one InterProcessSemaphoreV2 over and over: at no instant do more
// than maxLeases holders have one, and the leases are really shared (the peak
// reaches maxLeases).
func TestSemaphoreV2AcrossLanguages(t *testing.T) {
	const (
		path      = "/interop/semaphore"
		maxLeases = 2
		perLang   = 3
		rounds    = 4
		holdFor   = 30 * time.Millisecond
	)
	srv := startZooKeeper(t)
	gc := newGoClient(t, srv.ConnectString())
	java := StartHelper(t, srv.ConnectString())
	ctx := testContext(t, 60*time.Second)

	type result struct {
		holds []hold
		nodes []string
		err   error
	}
	results := make(chan result, 2*perLang)
	for i := range perLang {
		owner := fmt.Sprintf("go-%d", i)
		s := built(locks.NewInterProcessSemaphoreV2(gc, path, maxLeases))
		go func() {
			var r result
			for range rounds {
				lease, err := s.Acquire(ctx)
				if err != nil {
					r.err = fmt.Errorf("%s: acquire: %w", owner, err)
					break
				}
				from := now()
				time.Sleep(holdFor) // the work done under the lease
				to := now()
				if err := lease.Close(ctx); err != nil {
					r.err = fmt.Errorf("%s: return lease: %w", owner, err)
					break
				}
				r.holds = append(r.holds, hold{owner: owner, from: from, to: to})
				r.nodes = append(r.nodes, lease.Path())
			}
			results <- r
		}()

		handle := fresh("semaphore")
		if err := java.Semaphore(ctx, handle, path, maxLeases); err != nil {
			t.Fatal(err)
		}
		go func() {
			var r result
			for range rounds {
				h, node, err := holdInJava(ctx, java, handle, holdFor)
				if err != nil {
					r.err = err
					break
				}
				r.holds, r.nodes = append(r.holds, h), append(r.nodes, node)
			}
			results <- r
		}()
	}

	var holds []hold
	var names []string
	for range 2 * perLang {
		select {
		case r := <-results:
			if r.err != nil {
				t.Fatal(r.err)
			}
			holds = append(holds, r.holds...)
			names = append(names, base(r.nodes[0]))
		case <-ctx.Done():
			t.Fatalf("semaphore contenders did not finish: %v", ctx.Err())
		}
	}
	if len(holds) != 2*perLang*rounds {
		t.Fatalf("%d leases reported, want %d", len(holds), 2*perLang*rounds)
	}
	peak, a, b := maxConcurrent(holds)
	if peak > maxLeases {
		t.Fatalf("%d leases held at once (max %d), among them %s %v..%v and %s %v..%v",
			peak, maxLeases, a.owner, a.from, a.to, b.owner, b.from, b.to)
	}
	if peak < maxLeases {
		t.Fatalf("at most %d lease held at once by %d contenders wanting %d: the semaphore did not share its leases",
			peak, 2*perLang, maxLeases)
	}

	format := regexp.MustCompile(uuidPrefix + `lease-[0-9]{10}$`)
	accepted, err := java.IsProtectedZNode(ctx, names...)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		if !accepted[i] || !protection.IsProtected(n) || !format.MatchString(n) {
			t.Errorf("lease node %q: Curator accepts %v, protection.IsProtected %v, matches %s %v",
				n, accepted[i], protection.IsProtected(n), format, format.MatchString(n))
		}
	}
}

// holdInJava takes one lease of handle in the helper, keeps it for holdFor and
// returns it, reporting the hold and the lease node.
func holdInJava(ctx context.Context, h *Helper, handle string, holdFor time.Duration) (hold, string, error) {
	call, err := h.Hold(handle, holdFor, acquireWait)
	if err != nil {
		return hold{}, "", err
	}
	acquired, err := call.Acquired(ctx)
	if err != nil {
		return hold{}, "", err
	}
	released, err := call.Await(ctx, KindReleased)
	if err != nil {
		return hold{}, "", err
	}
	return hold{owner: h.Name() + ":" + handle, from: acquired.At, to: released.At}, acquired.Field(1), nil
}
