package interop

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
)

// TestMixedContention runs Go and Curator contenders against one mutex, each
// incrementing a shared counter under the lock by reading it and writing it
// back without a version: a lost increment or two overlapping holds mean the
// two libraries did not exclude each other.
func TestMixedContention(t *testing.T) {
	const (
		rounds      = 50
		path        = "/interop/mixed/lock"
		counterPath = "/interop/mixed/counter"
	)
	srv := startZooKeeper(t)
	obs := newObserver(t, srv.ConnectString())
	obs.create(counterPath, []byte("0"))
	ctx := testContext(t, 90*time.Second)

	type result struct {
		holds []hold
		err   error
	}
	var calls []*Call
	var callOwners []string
	goResults := make(chan result, 4)
	for i := range 2 {
		java := StartHelper(t, srv.ConnectString(), WithName(fmt.Sprintf("curator-%d", i)))
		for j := range 2 {
			handle := fmt.Sprintf("count%d", j)
			if err := java.Mutex(ctx, handle, path); err != nil {
				t.Fatal(err)
			}
			c, err := java.Count(handle, counterPath, rounds, acquireWait)
			if err != nil {
				t.Fatal(err)
			}
			calls, callOwners = append(calls, c), append(callOwners, java.Name()+":"+handle)
		}
		gc := newGoClient(t, srv.ConnectString())
		for j := range 2 {
			owner := fmt.Sprintf("go-%d:count%d", i, j)
			m := built(locks.NewInterProcessMutex(gc, path))
			go func() {
				holds, err := countInGo(ctx, gc, m, owner, counterPath, rounds)
				goResults <- result{holds, err}
			}()
		}
	}

	var holds []hold
	for range 4 {
		select {
		case r := <-goResults:
			if r.err != nil {
				t.Fatal(r.err)
			}
			holds = append(holds, r.holds...)
		case <-ctx.Done():
			t.Fatalf("Go contenders did not finish: %v", ctx.Err())
		}
	}
	for i, c := range calls {
		if _, err := c.Await(ctx, KindCounted); err != nil {
			t.Fatal(err)
		}
		for _, e := range c.Events(KindRound) {
			h, err := holdFromRound(callOwners[i], e)
			if err != nil {
				t.Fatal(err)
			}
			holds = append(holds, h)
		}
	}
	want := 8 * rounds
	if len(holds) != want {
		t.Fatalf("%d holds reported, want %d", len(holds), want)
	}
	checkExclusive(t, holds)
	if got := obs.counter(counterPath); got != int64(want) {
		t.Fatalf("counter = %d after %d increments under the lock: increments were lost", got, want)
	}
}

// countInGo increments the counter at counterPath rounds times, each time under
// m, and returns its holds.
func countInGo(ctx context.Context, c *framework.Client, m *locks.InterProcessMutex, owner, counterPath string, rounds int) ([]hold, error) {
	holds := make([]hold, 0, rounds)
	for range rounds {
		if err := m.Acquire(ctx); err != nil {
			return nil, fmt.Errorf("%s: acquire: %w", owner, err)
		}
		from := now()
		incErr := increment(ctx, c, counterPath)
		to := now()
		if err := m.Release(ctx); err != nil {
			return nil, fmt.Errorf("%s: release: %w", owner, err)
		}
		if incErr != nil {
			return nil, fmt.Errorf("%s: %w", owner, incErr)
		}
		holds = append(holds, hold{owner: owner, from: from, to: to})
	}
	return holds, nil
}

// increment reads a decimal counter and writes it back plus one, without a
// version: only the lock keeps increments from being lost.
func increment(ctx context.Context, c *framework.Client, path string) error {
	data, _, err := c.GetData(ctx, path)
	if err != nil {
		return err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		return fmt.Errorf("counter %s holds %q: %w", path, data, err)
	}
	_, err = c.SetData(ctx, path, []byte(strconv.FormatInt(n+1, 10)), -1)
	return err
}
