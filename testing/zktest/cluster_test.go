package zktest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// memberMode asks member i of c for its mode, failing the test if it does
// not answer.
func memberMode(t *testing.T, c *Cluster, i int) string {
	t.Helper()
	mode, err := serverMode(context.Background(), c.Server(i).Addr())
	if err != nil {
		t.Fatalf("member %d: %v", i, err)
	}
	return mode
}

func TestClusterSurvivesLeaderLoss(t *testing.T) {
	start := time.Now()
	c := StartCluster(t, 3)
	took := time.Since(start)
	t.Logf("3-node ZooKeeper cluster ready in %v", took)
	if took > 20*time.Second {
		t.Errorf("cluster start took %v, want well under 20s", took)
	}
	for i := range c.Size() {
		if s := c.Server(i).SlowestStart(); s <= 0 || s > took {
			t.Errorf("member %d's start recorded as %v; want its share of the cluster's %v start (ElectionBudget builds on it)", i, s, took)
		}
	}
	if c.Size() != 3 || len(c.Addrs()) != 3 || c.ConnectString() != strings.Join(c.Addrs(), ",") {
		t.Fatalf("Size %d, Addrs %v, ConnectString %q: want 3 members listed in order", c.Size(), c.Addrs(), c.ConnectString())
	}

	leader, err := c.Leader()
	if err != nil {
		t.Fatal(err)
	}
	for i := range c.Size() {
		if want := map[bool]string{true: "leader", false: "follower"}[i == leader]; memberMode(t, c, i) != want {
			t.Errorf("member %d is %s, want %s", i, memberMode(t, c, i), want)
		}
	}

	cl := connect(t, c.ConnectString(), 4*time.Second)
	createRetrying(t, cl, "/before", []byte("1"), 5*time.Second)

	if err := c.Kill(leader); err != nil {
		t.Fatalf("kill leader %d: %v", leader, err)
	}
	// The bound is what the ensemble's configuration and this machine's
	// measured starts allow a leader change (Cluster.ElectionBudget).
	budget := c.ElectionBudget()
	start = time.Now()
	newLeader := -1
	await(t, budget, "a new leader", func() bool {
		newLeader, err = c.Leader()
		return err == nil
	})
	t.Logf("member %d took over from member %d in %v (budget %v)", newLeader, leader, time.Since(start), budget)
	if newLeader == leader {
		t.Fatalf("killed member %d still leads", leader)
	}

	createRetrying(t, cl, "/after", []byte("2"), 15*time.Second)
	for path, want := range map[string]string{"/before": "1", "/after": "2"} {
		if data, _, err := cl.Get(path); err != nil || string(data) != want {
			t.Errorf("get %s = %q, %v; want %q", path, data, err, want)
		}
	}

	start = time.Now()
	if err := c.Restart(leader); err != nil {
		t.Fatalf("restart member %d: %v", leader, err)
	}
	t.Logf("member %d rejoined in %v", leader, time.Since(start))
	if mode := memberMode(t, c, leader); mode != "follower" {
		t.Errorf("restarted member %d is %q, want follower", leader, mode)
	}
	direct := connect(t, c.Addrs()[leader], 4*time.Second)
	if data, _, err := direct.Get("/after"); err != nil || string(data) != "2" {
		t.Errorf("restarted member %d: get /after = %q, %v; want the write made while it was down", leader, data, err)
	}

	// With two of three members gone there is no quorum and no leader; a
	// restarted member is ready once it has formed a quorum again.
	others := []int{(leader + 1) % 3, (leader + 2) % 3}
	for _, i := range others {
		if err := c.Kill(i); err != nil {
			t.Fatal(err)
		}
	}
	// Stepping down is the first step of a leader change: noticing the loss.
	await(t, c.ElectionBudget(), "the lone member steps down", func() bool {
		_, err := c.Leader()
		return errors.Is(err, ErrNoLeader)
	})
	if err := c.Restart(others[0]); err != nil {
		t.Fatalf("restart member %d: %v", others[0], err)
	}
	if _, err := c.Leader(); err != nil {
		t.Errorf("no leader after a quorum came back: %v", err)
	}
}

func TestClusterRejectsBadMembers(t *testing.T) {
	c := &Cluster{members: make([]*Server, 3)}
	for _, i := range []int{-1, 3} {
		if err := c.Kill(i); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("member %d", i)) {
			t.Errorf("Kill(%d) error = %v; want one naming the member", i, err)
		}
		if err := c.Restart(i); err == nil {
			t.Errorf("Restart(%d) succeeded", i)
		}
	}
	if _, err := NewCluster(0); err == nil || !strings.Contains(err.Error(), "cluster size 0") {
		t.Errorf("NewCluster(0) error = %v; want one naming the size", err)
	}
}
