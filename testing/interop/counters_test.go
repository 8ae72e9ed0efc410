package interop

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/recipes/atomic"
	"github.com/zkcurator/zkcurator/recipes/barriers"
	"github.com/zkcurator/zkcurator/recipes/shared"
	"github.com/zkcurator/zkcurator/retry"
)

// TestAtomicLongAcrossLanguages increments one DistributedAtomicLong from Go
// and from Curator at the same time: every increment both sides report
// successful is in the total, and nothing else is.
func TestAtomicLongAcrossLanguages(t *testing.T) {
	const (
		path    = "/interop/atomic-long"
		workers = 2 // per language
		each    = 40
	)
	srv := startZooKeeper(t)
	gc := newGoClient(t, srv.ConnectString())
	java := StartHelper(t, srv.ConnectString())
	ctx := testContext(t, 90*time.Second)

	calls := make([]*Call, workers)
	for i := range calls {
		var err error
		if calls[i], err = java.Send("atomic.increment", path, strconv.Itoa(each)); err != nil {
			t.Fatal(err)
		}
	}
	l, err := atomic.NewDistributedAtomicLong(gc, path, atomic.WithRetryPolicy(retry.NTimes{N: 1000, Sleep: time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	goOK := incrementInGo(t, workers, each, func() (bool, error) {
		r, err := l.Increment(ctx)
		return r.Succeeded, err
	})

	javaOK := 0
	for _, c := range calls {
		e, err := c.Await(ctx, "ATOMIC_DONE")
		if err != nil {
			t.Fatal(err)
		}
		ok, _ := strconv.Atoi(e.Field(1))
		if e.Field(2) != "0" {
			t.Errorf("Curator reported %s failed increments", e.Field(2))
		}
		javaOK += ok
	}
	e, err := java.Do(ctx, "VALUE", "atomic.get", path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := l.Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := int64(goOK + javaOK)
	if r.PostValue != want || e.Field(1) != strconv.FormatInt(want, 10) {
		t.Fatalf("counter: Go reads %d, Curator reads %s; want %d (%d from Go, %d from Curator)", r.PostValue, e.Field(1), want, goOK, javaOK)
	}
	if want != 2*workers*each {
		t.Errorf("only %d of %d increments succeeded", want, 2*workers*each)
	}
}

// TestSharedCountAcrossLanguages increments one SharedCount with
// version-checked sets from Go and from Curator at the same time: the total
// is exact.
func TestSharedCountAcrossLanguages(t *testing.T) {
	const (
		path    = "/interop/shared-count"
		workers = 2
		each    = 40
	)
	srv := startZooKeeper(t)
	gc := newGoClient(t, srv.ConnectString())
	java := StartHelper(t, srv.ConnectString())
	ctx := testContext(t, 90*time.Second)

	calls := make([]*Call, workers)
	for i := range calls {
		var err error
		if calls[i], err = java.Send("shared.increment", path, strconv.Itoa(each)); err != nil {
			t.Fatal(err)
		}
	}
	counts := make([]*shared.SharedCount, workers)
	for i := range counts {
		var err error
		if counts[i], err = shared.NewSharedCount(gc, path, 0); err != nil {
			t.Fatal(err)
		}
		if err := counts[i].Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer counts[i].Close()
	}
	var next sync.Mutex
	n := 0
	goOK := incrementInGo(t, workers, each, func() (bool, error) {
		next.Lock()
		sc := counts[n%workers]
		n++
		next.Unlock()
		for tries := 0; tries < 10000; tries++ {
			v := sc.VersionedValue()
			ok, err := sc.TrySet(ctx, v.Value+1, v.Version)
			if err != nil || ok {
				return ok, err
			}
		}
		return false, errors.New("an increment conflicted 10000 times")
	})
	for _, c := range calls {
		if _, err := c.Await(ctx, "SHARED_DONE"); err != nil {
			t.Fatal(err)
		}
	}
	e, err := java.Do(ctx, "VALUE", "shared.get", path)
	if err != nil {
		t.Fatal(err)
	}
	want := goOK + workers*each
	if e.Field(1) != strconv.Itoa(want) {
		t.Fatalf("Curator reads %s, want %d", e.Field(1), want)
	}
	waitFor(t, ctx, "Go's count to reach the total", func() (bool, error) {
		return int(counts[0].Count()) == want, nil
	})
}

// incrementInGo runs workers goroutines that call inc each times and returns
// how many succeeded; an error or a failed increment fails the test.
func incrementInGo(t *testing.T, workers, each int, inc func() (bool, error)) int {
	t.Helper()
	var mu sync.Mutex
	ok := 0
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				succeeded, err := inc()
				if err == nil && !succeeded {
					err = fmt.Errorf("increment %d did not succeed", i)
				}
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				ok++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	return ok
}

// TestDoubleBarrierAcrossLanguages has a Curator member and a Go member pass
// one DistributedDoubleBarrier together: neither enters alone, both enter
// once both are in, and both leave.
func TestDoubleBarrierAcrossLanguages(t *testing.T) {
	for _, javaFirst := range []bool{true, false} {
		t.Run(fmt.Sprintf("javaFirst=%v", javaFirst), func(t *testing.T) {
			testDoubleBarrier(t, javaFirst)
		})
	}
}

func testDoubleBarrier(t *testing.T, javaFirst bool) {
	const path = "/interop/double"
	srv := startZooKeeper(t)
	gc := newGoClient(t, srv.ConnectString())
	java := StartHelper(t, srv.ConnectString())
	obs := newObserver(t, srv.ConnectString())
	ctx := testContext(t, 60*time.Second)
	if err := java.DoubleBarrier(ctx, "j", path, 2); err != nil {
		t.Fatal(err)
	}
	member, err := barriers.NewDistributedDoubleBarrier(gc, path, 2)
	if err != nil {
		t.Fatal(err)
	}

	var javaEnter *Call
	goEntered := make(chan error, 1)
	if javaFirst {
		if javaEnter, err = java.EnterBarrier("j", barrierCallTimeout); err != nil {
			t.Fatal(err)
		}
		obs.waitChildren(ctx, path, 1)
		if evs := javaEnter.Events(KindEntered); len(evs) != 0 {
			t.Fatalf("Curator entered alone: %v", evs)
		}
		go func() { goEntered <- member.Enter(ctx) }()
	} else {
		go func() { goEntered <- member.Enter(ctx) }()
		obs.waitChildren(ctx, path, 1)
		select {
		case err := <-goEntered:
			t.Fatalf("Go entered alone: %v", err)
		default:
		}
		if javaEnter, err = java.EnterBarrier("j", barrierCallTimeout); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := javaEnter.Passed(ctx, KindEntered); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-goEntered:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("Go did not enter")
	}

	goLeft := make(chan error, 1)
	go func() { goLeft <- member.Leave(ctx) }()
	left, err := java.LeaveBarrier("j", barrierCallTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := left.Passed(ctx, KindLeft); err != nil {
		t.Fatalf("Curator's leave: %v", err)
	}
	select {
	case err := <-goLeft:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("Go did not leave")
	}
	waitFor(t, ctx, "no member or ready node left", func() (bool, error) {
		kids, err := obs.children(path)
		return len(kids) == 0, err
	})
}
