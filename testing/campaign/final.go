package campaign

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/campaign/internal/ensemble"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// nodesUnder lists the children of every parent, as full paths; a parent
// that does not exist (an empty container, reaped) has none.
func nodesUnder(ctx context.Context, c *framework.Client, parents []string) ([]string, error) {
	var nodes []string
	for _, parent := range parents {
		children, _, err := c.Children(ctx, parent)
		switch {
		case errors.Is(err, zk.ErrNoNode):
		case err != nil:
			return nil, fmt.Errorf("campaign: list %s: %w", parent, err)
		}
		for _, child := range children {
			nodes = append(nodes, parent+"/"+child)
		}
	}
	return nodes, nil
}

// synced brings the member c is connected to up to date with the ensemble's
// leader, so that a fresh client's reads see every write acknowledged before
// they began: a follower that was cut off or paused may lag behind the
// leader's commits for a moment after it serves again.
func synced(c *framework.Client) error {
	if _, err := c.Conn().Sync("/"); err != nil {
		return fmt.Errorf("campaign: sync with the leader: %w", err)
	}
	return nil
}

// finalState reads the outcome once every client has closed: the counter,
// the fence, the acknowledgement nodes, and the lock's (or lease and lock)
// nodes, polled until the ensemble has expired the sessions the clients
// abandoned (bounded by a few session timeouts), and the alarms the members
// logged after marks (logMarks, taken when the run began). Every read
// follows a sync.
func finalState(ctx context.Context, cluster *zktest.Cluster, p paths, sessionTimeout time.Duration, marks []int) (endState, error) {
	var f endState
	c, err := adminClient(ctx, cluster)
	if err != nil {
		return f, err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()

	deadline := time.Now().Add(4*sessionTimeout + 5*time.Second)
	for {
		if err := synced(c); err != nil {
			return f, err
		}
		parents := p.nodes
		if p.nested {
			if parents, err = nodesUnder(ctx, c, p.nodes); err != nil {
				return f, err
			}
		}
		if f.Orphans, err = nodesUnder(ctx, c, parents); err != nil {
			return f, err
		}
		if !slices.ContainsFunc(f.Orphans, p.expires) || time.Now().After(deadline) || !sleepCtx(ctx, 100*time.Millisecond) {
			break
		}
	}

	if f.Counter, _, err = ensemble.ReadInt(ctx, c, p.counter); err != nil {
		return f, fmt.Errorf("campaign: %w", err)
	}
	if f.Fence, _, err = ensemble.ReadInt(ctx, c, p.fence); err != nil {
		return f, fmt.Errorf("campaign: %w", err)
	}
	if f.Long, f.Count, err = counterValues(ctx, c, p); err != nil {
		return f, err
	}
	names, _, err := c.Children(ctx, p.acks)
	if err != nil {
		return f, fmt.Errorf("campaign: list %s: %w", p.acks, err)
	}
	for _, name := range names {
		data, _, err := c.GetData(ctx, p.acks+"/"+name)
		if err != nil {
			return f, fmt.Errorf("campaign: read %s/%s: %w", p.acks, name, err)
		}
		a, err := parseAck(name, data)
		if err != nil {
			return f, fmt.Errorf("campaign: %w", err)
		}
		f.Acks = append(f.Acks, a)
	}
	if p.queue != "" {
		if f.Queued, err = queuedItems(ctx, c, p.queue); err != nil {
			return f, err
		}
	}
	f.Replicas, err = replicaViews(ctx, cluster, p)
	f.Alarms = serverAlarms(cluster, marks)
	return f, err
}

// consistencyAlarms are what a ZooKeeper 3.8 member logs when it finds its
// own state inconsistent, each the words one log line holds: a data tree
// whose digest differs from the one the leader computed for the same zxid,
// or a transaction log written out of zxid order (seen after a DIFF sync
// that lost acknowledged writes).
var consistencyAlarms = [][]string{
	{"Digests are not matching"},
	{"FileTxnLog", "Current zxid ", " is <= "},
}

// logMarks is how many lines each member's log holds now. A member's log
// keeps every run of the member, and an ensemble may serve one campaign
// after another: serverAlarms reads only the lines after the marks, those
// of the run that follows.
func logMarks(cluster *zktest.Cluster) []int {
	marks := make([]int, cluster.Size())
	for i := range marks {
		marks[i] = len(logLines(cluster.Server(i).LogTail(math.MaxInt32)))
	}
	return marks
}

// serverAlarms returns, per member and alarm its log holds after its mark,
// how many lines raised it and the first such line.
func serverAlarms(cluster *zktest.Cluster, marks []int) []string {
	var out []string
	for i := range cluster.Size() {
		out = append(out, alarmsIn(i, logAfter(cluster.Server(i).LogTail(math.MaxInt32), marks[i]))...)
	}
	return out
}

// logLines splits a log into its lines; an empty log has none.
func logLines(log string) []string {
	if log == "" {
		return nil
	}
	return strings.Split(log, "\n")
}

// logAfter is log without its first mark lines.
func logAfter(log string, mark int) string {
	lines := logLines(log)
	return strings.Join(lines[min(mark, len(lines)):], "\n")
}

// alarmsIn is serverAlarms for the log of member i.
func alarmsIn(i int, log string) []string {
	var out []string
	lines := strings.Split(log, "\n")
	for _, alarm := range consistencyAlarms {
		var first string
		n := 0
		for _, line := range lines {
			if containsAll(line, alarm) {
				if n == 0 {
					first = strings.TrimSpace(line)
				}
				n++
			}
		}
		if n > 0 {
			out = append(out, fmt.Sprintf("member %d logged %d line(s) like %q", i, n, first))
		}
	}
	return out
}

// containsAll reports whether s holds every one of words.
func containsAll(s string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

// replicaViews reads the campaign's outcome (paths.outcome: persistent
// nodes no one changes once the clients have closed) from each member in
// turn, after a sync with the leader, and describes how the members differ
// (nil when all agree).
func replicaViews(ctx context.Context, cluster *zktest.Cluster, p paths) ([]string, error) {
	trees := make([][]string, cluster.Size())
	for i, addr := range cluster.Addrs() {
		c, err := dialAdmin(ctx, addr)
		if err != nil {
			return nil, fmt.Errorf("campaign: member %d: %w (%s)", i, err, membersStatus(ctx, cluster))
		}
		if err = synced(c); err == nil {
			trees[i], err = treeOf(ctx, c, p.outcome()...)
		}
		c.Close()
		if err != nil {
			return nil, fmt.Errorf("campaign: member %d: %w", i, err)
		}
	}
	var diffs []string
	for i := 1; i < len(trees); i++ {
		if d := treeDiff(trees[0], trees[i]); d != "" {
			diffs = append(diffs, fmt.Sprintf("member 0 (%d nodes) against member %d (%d nodes): %s", len(trees[0]), i, len(trees[i]), d))
		}
	}
	return diffs, nil
}

// outcome are the roots of the nodes that hold a campaign's outcome once
// its clients have closed: the acknowledgements, counters and fence, and
// the queue's items.
func (p paths) outcome() []string {
	roots := []string{p.acks, p.counter, p.fence, p.long, p.count}
	if p.queue != "" {
		roots = append(roots, p.queue)
	}
	return roots
}

// treeOf lists every node under roots (roots included) as "path=data",
// sorted; a root that does not exist has none.
func treeOf(ctx context.Context, c *framework.Client, roots ...string) ([]string, error) {
	var out []string
	for todo := slices.Clone(roots); len(todo) > 0; {
		path := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		data, _, err := c.GetData(ctx, path)
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return nil, err
		}
		kids, _, err := c.Children(ctx, path)
		if err != nil && !errors.Is(err, zk.ErrNoNode) {
			return nil, err
		}
		out = append(out, path+"="+string(data))
		for _, k := range kids {
			todo = append(todo, framework.JoinPath(path, k))
		}
	}
	slices.Sort(out)
	return out, nil
}

// treeDiff names up to three entries found in only one of two sorted trees,
// or returns "" when they are equal.
func treeDiff(a, b []string) string {
	var only []string
	for i, j := 0, 0; (i < len(a) || j < len(b)) && len(only) < 3; {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			only = append(only, "only the first has "+a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			only = append(only, "only the second has "+b[j])
			j++
		default:
			i, j = i+1, j+1
		}
	}
	return strings.Join(only, ", ")
}
