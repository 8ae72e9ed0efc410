package barriers_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/barriers"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// wait is the ctx deadline these tests give a call; slack is how much later
// than it the call may return. A call that ignored its ctx would return no
// sooner than a connection timeout (15 s or more here) or, in the partition,
// two thirds of the 20 s session (Suspended): 3 s still tells the two apart
// and leaves room for a loaded machine.
const (
	wait  = time.Second
	slack = 3 * time.Second
)

// withinWait runs call with a ctx of deadline wait and checks that it
// returns within it (and slack), with DeadlineExceeded and an error that
// names what it was waiting for (one of waitingFor).
func withinWait(t *testing.T, name string, waitingFor []string, call func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	began := time.Now()
	err := call(ctx)
	took := time.Since(began)
	if took > wait+slack {
		t.Errorf("%s took %v with a wait of %v", name, took, wait)
	}
	says := slices.ContainsFunc(waitingFor, func(w string) bool { return err != nil && strings.Contains(err.Error(), w) })
	if !errors.Is(err, context.DeadlineExceeded) || !says {
		t.Errorf("%s = %v, want DeadlineExceeded saying one of %q", name, err, waitingFor)
	}
}

// unreachableClient is a started client whose connect string points where
// nothing listens, with a connection timeout and retries longer than any
// wait here.
func unreachableClient(t *testing.T) *framework.Client {
	t.Helper()
	return zkclient.Unreachable(t, retry.Forever{Interval: 100 * time.Millisecond},
		framework.WithConnectionTimeout(30*time.Second), framework.WithSessionTimeout(30*time.Second))
}

// Every barrier call on a client that cannot connect returns within its
// ctx's deadline, saying what it was waiting for.
func TestBarrierCallsWithinTheirWaitWhenNothingListens(t *testing.T) {
	c := unreachableClient(t)
	b, err := barriers.NewDistributedBarrier(c, "/nowhere/gate")
	zktest.Must(t, err)
	d, err := barriers.NewDistributedDoubleBarrier(c, "/nowhere/double", 2)
	zktest.Must(t, err)
	withinWait(t, "Set", []string{"creating the barrier node"}, b.Set)
	withinWait(t, "Remove", []string{"deleting the barrier node"}, b.Remove)
	withinWait(t, "Wait", []string{"waiting for the barrier node to be removed"}, b.Wait)
	withinWait(t, "Enter", []string{"looking for the ready node"}, d.Enter)
}

// In a partition (the proxy holds every byte, the session outlives it),
// every barrier call returns within its ctx's deadline, saying what it was
// waiting for; a member that gave up deletes its node once the partition
// heals.
func TestBarrierCallsWithinTheirWaitInAPartition(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, p.Addr(), framework.WithSessionTimeout(20*time.Second), framework.WithConnectionTimeout(20*time.Second))
	observer := zkclient.New(t, srv.ConnectString())
	gate, err := barriers.NewDistributedBarrier(c, "/part/gate")
	zktest.Must(t, err)
	zktest.Must(t, gate.Set(ctx))
	// Two members in, whose first leaves in the partition.
	l1, err := barriers.NewDistributedDoubleBarrier(c, "/part/leave", 2)
	zktest.Must(t, err)
	l2, err := barriers.NewDistributedDoubleBarrier(observer, "/part/leave", 2)
	zktest.Must(t, err)
	entered := make(chan error, 1)
	go func() { entered <- l2.Enter(ctx) }()
	zktest.Must(t, l1.Enter(ctx))
	zktest.Must(t, <-entered)

	// A member alone in Enter when the partition begins.
	a, err := barriers.NewDistributedDoubleBarrier(c, "/part/enter", 2)
	zktest.Must(t, err)
	// The partition may begin before Enter has counted the members.
	entering := []string{"waiting for 2 members to enter (1 in)", "counting the members"}
	withinWait(t, "Enter", entering, func(ectx context.Context) error {
		done := make(chan error, 1)
		go func() { done <- a.Enter(ectx) }()
		zktest.Eventually(t, wait, "the entering member's node", func() bool {
			stat, err := observer.Exists(ctx, a.MemberPath())
			return err == nil && stat != nil
		})
		p.Pause()
		return <-done
	})
	other, err := barriers.NewDistributedBarrier(c, "/part/other")
	zktest.Must(t, err)
	withinWait(t, "Set", []string{"creating the barrier node"}, other.Set)
	withinWait(t, "Wait", []string{"waiting for the barrier node to be removed"}, gate.Wait)
	withinWait(t, "Remove", []string{"deleting the barrier node"}, gate.Remove)
	withinWait(t, "Leave", []string{"listing the members"}, l1.Leave)
	p.Resume()

	for _, m := range []*barriers.DistributedDoubleBarrier{a, l1} {
		zktest.Eventually(t, 10*time.Second, "the node of a member that gave up deleted", func() bool {
			stat, err := observer.Exists(ctx, m.MemberPath())
			return err == nil && stat == nil
		})
	}
	zktest.Must(t, l2.Leave(ctx))
}
