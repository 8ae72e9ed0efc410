package zktest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// modes asks every member for its mode; "" for one that does not serve or
// does not answer.
func modes(c *Cluster) []string {
	out := make([]string, c.Size())
	for i := range out {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		out[i], _ = serverMode(ctx, c.Server(i).Addr())
		cancel()
	}
	return out
}

// awaitLeaderAmong waits until exactly one member of among leads, and
// returns it.
func awaitLeaderAmong(t *testing.T, c *Cluster, among []int, within time.Duration) int {
	t.Helper()
	leader := -1
	await(t, within, fmt.Sprintf("a leader among members %v", among), func() bool {
		m := modes(c)
		leader = -1
		for _, i := range among {
			if m[i] == "leader" {
				leader = i
			}
		}
		return leader >= 0
	})
	return leader
}

func others(n, i int) []int {
	var out []int
	for j := range n {
		if j != i {
			out = append(out, j)
		}
	}
	return out
}

// TestClusterPartitionsAndPauses cuts the leader off from its followers,
// bridges the ensemble through one member and freezes the leader, and
// checks each time that the majority elects a leader and serves writes
// while the cut-off or frozen member serves none, and that it catches up
// once healed.
func TestClusterPartitionsAndPauses(t *testing.T) {
	c := StartCluster(t, 3)
	old, err := c.Leader()
	if err != nil {
		t.Fatal(err)
	}
	rest := others(3, old)

	// The leader alone on one side: it stops serving within the sync
	// limit, the other two elect one of themselves.
	if err := c.Partition([]int{old}, rest); err != nil {
		t.Fatal(err)
	}
	if cut := c.Cut(); !slices.Equal(cut[old], rest) || !slices.Equal(cut[rest[0]], []int{old}) {
		t.Fatalf("Cut() = %v after isolating member %d", cut, old)
	}
	leader := awaitLeaderAmong(t, c, rest, max(20*time.Second, c.ElectionBudget()))
	await(t, 10*time.Second, "the isolated old leader to stop serving", func() bool {
		return modes(c)[old] == ""
	})
	major := connect(t, c.Server(leader).Addr(), 4*time.Second)
	createRetrying(t, major, "/during-partition", []byte("majority"), 10*time.Second)
	pinned, _, err := zk.Connect([]string{c.Server(old).Addr()}, 2*time.Second, zk.WithLogger(quietLogger{}))
	if err != nil {
		t.Fatal(err)
	}
	defer pinned.Close()
	if _, err := pinned.Create("/from-minority", nil, 0, zk.WorldACL(zk.PermAll)); err == nil {
		t.Fatalf("a client pinned to isolated member %d wrote during the partition", old)
	}

	c.Heal()
	if cut := c.Cut(); slices.ContainsFunc(cut, func(r []int) bool { return len(r) > 0 }) {
		t.Fatalf("Cut() = %v after Heal", cut)
	}
	await(t, 20*time.Second, "the old leader to rejoin as a follower", func() bool {
		return modes(c)[old] == "follower"
	})
	back := connect(t, c.Server(old).Addr(), 4*time.Second)
	if data, _, err := back.Get("/during-partition"); err != nil || string(data) != "majority" {
		t.Fatalf("healed member %d: get /during-partition = %q, %v; want the majority's write", old, data, err)
	}

	// A bridge: member 1 sees both sides, 0 and 2 do not see each other.
	// A quorum still forms through member 1.
	if err := c.Partition([]int{0, 1}, []int{1, 2}); err != nil {
		t.Fatal(err)
	}
	if cut := c.Cut(); len(cut[1]) != 0 || !slices.Equal(cut[0], []int{2}) || !slices.Equal(cut[2], []int{0}) {
		t.Fatalf("Cut() = %v for a bridge through member 1", cut)
	}
	bridge := connect(t, c.Server(1).Addr(), 4*time.Second)
	createRetrying(t, bridge, "/across-bridge", nil, 20*time.Second)
	c.Heal()

	// A frozen leader: the followers elect another; once resumed it
	// follows and has the writes made while it slept.
	old = awaitLeaderAmong(t, c, []int{0, 1, 2}, max(20*time.Second, c.ElectionBudget()))
	rest = others(3, old)
	if err := c.Pause(old); err != nil {
		t.Fatal(err)
	}
	leader = awaitLeaderAmong(t, c, rest, max(20*time.Second, c.ElectionBudget()))
	after := connect(t, c.Server(leader).Addr(), 4*time.Second)
	createRetrying(t, after, "/while-paused", nil, 10*time.Second)
	if err := c.Resume(old); err != nil {
		t.Fatal(err)
	}
	await(t, 20*time.Second, "the resumed old leader to follow", func() bool {
		return modes(c)[old] == "follower"
	})
	resumed := connect(t, c.Server(old).Addr(), 4*time.Second)
	if ok, _, err := resumed.Exists("/while-paused"); err != nil || !ok {
		t.Fatalf("resumed member %d: exists /while-paused = %v, %v", old, ok, err)
	}

	// Killing a paused member works.
	if err := c.Pause(old); err != nil {
		t.Fatal(err)
	}
	if err := c.Kill(old); err != nil {
		t.Fatal(err)
	}
	if err := c.Resume(old); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("Resume of a killed member: err = %v; want not running", err)
	}
}

func TestClusterPartitionRejectsBadMembers(t *testing.T) {
	c := &Cluster{members: make([]*Server, 3)}
	c.net.links = make([][]*peerLink, 3)
	if err := c.Partition([]int{0, 1}, []int{3}); err == nil || !strings.Contains(err.Error(), "member 3") {
		t.Errorf("Partition naming member 3 of 3: err = %v; want one naming the member", err)
	}
	for _, i := range []int{-1, 3} {
		if err := c.Pause(i); err == nil {
			t.Errorf("Pause(%d) succeeded", i)
		}
		if err := c.Resume(i); err == nil {
			t.Errorf("Resume(%d) succeeded", i)
		}
	}
}
