package interop

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/barriers"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

const (
	// barrierCallTimeout bounds each Curator enter and leave.
	barrierCallTimeout = 30 * time.Second
	// settleWait bounds the wait for a leaving member to settle.
	settleWait = 20 * time.Second
)

// leaveScripts are the leave orders the test plays: the member holding the
// lowest node leaves first, or after every other member but the highest.
var leaveScripts = []string{"lowest first", "lowest second to last"}

// TestDoubleBarrierLeaveOrderAcrossLanguages has two Curator and two Go
// members pass one DistributedDoubleBarrier (memberQty 4) and leave one by
// one in a scripted order, each settled in its leave before the next
// starts: no member returns from its leave before the last has started
// leaving, and the lowest member keeps its node (Curator 5.4's protocol)
// until it is alone. Rounds repeat on fresh paths until each script has run
// with a Go member lowest and with a Curator member lowest (node names are
// random UUIDs).
func TestDoubleBarrierLeaveOrderAcrossLanguages(t *testing.T) {
	srv := startZooKeeper(t)
	java := StartHelper(t, srv.ConnectString())
	goClients := []*framework.Client{newGoClient(t, srv.ConnectString()), newGoClient(t, srv.ConnectString())}
	obs := newObserver(t, srv.ConnectString())
	gone := newDeletions(t, srv.ConnectString())
	ctx := testContext(t, 4*time.Minute)

	played := map[string]bool{}
	for round := 0; round < 24 && len(played) < 2*len(leaveScripts); round++ {
		path := fmt.Sprintf("/interop/leave-order/%d", round)
		members := enterMembers(t, ctx, obs, path, []*barrierMember{
			newCuratorMember(t, ctx, java, fmt.Sprintf("j%da", round), path),
			newGoMember(t, goClients[0], path),
			newCuratorMember(t, ctx, java, fmt.Sprintf("j%db", round), path),
			newGoMember(t, goClients[1], path),
		})
		script := leaveScripts[0]
		for _, s := range leaveScripts {
			if !played[members[0].lang+" lowest, "+s] {
				script = s
				break
			}
		}
		t.Logf("round %d: %s lowest, %s", round, members[0].lang, script)
		leaveInOrder(t, ctx, srv, obs, gone, path, members, script)
		played[members[0].lang+" lowest, "+script] = true
	}
	if len(played) < 2*len(leaveScripts) {
		t.Fatalf("24 rounds played only %v", played)
	}
}

// barrierMember is one member of either language, and its node's name once
// it has entered.
type barrierMember struct {
	lang  string
	name  string
	enter func() *barrierStep
	leave func() *barrierStep
}

func (m *barrierMember) String() string { return fmt.Sprintf("%s member %s", m.lang, m.name) }

// barrierStep is an enter or a leave under way.
type barrierStep struct {
	done chan struct{}
	at   time.Time // when the call returned
	err  error
}

// startStep runs f, which returns when the call returned.
func startStep(f func() (time.Time, error)) *barrierStep {
	s := &barrierStep{done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.at, s.err = f()
	}()
	return s
}

// goCall is a Go call's end, stamped.
func goCall(err error) (time.Time, error) { return now(), err }

func (s *barrierStep) returned() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

func (s *barrierStep) wait(ctx context.Context) error {
	select {
	case <-s.done:
		return s.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func newGoMember(t *testing.T, c *framework.Client, path string) *barrierMember {
	t.Helper()
	b, err := barriers.NewDistributedDoubleBarrier(c, path, 4)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t, 4*time.Minute)
	return &barrierMember{
		lang:  "Go",
		enter: func() *barrierStep { return startStep(func() (time.Time, error) { return goCall(b.Enter(ctx)) }) },
		leave: func() *barrierStep { return startStep(func() (time.Time, error) { return goCall(b.Leave(ctx)) }) },
	}
}

func newCuratorMember(t *testing.T, ctx context.Context, h *Helper, handle, path string) *barrierMember {
	t.Helper()
	if err := h.DoubleBarrier(ctx, handle, path, 4); err != nil {
		t.Fatal(err)
	}
	call := func(start func(string, time.Duration) (*Call, error), kind string) *barrierStep {
		return startStep(func() (time.Time, error) {
			c, err := start(handle, barrierCallTimeout)
			if err != nil {
				return time.Time{}, err
			}
			e, err := c.Passed(ctx, kind)
			return e.At, err
		})
	}
	return &barrierMember{
		lang:  "Curator",
		enter: func() *barrierStep { return call(h.EnterBarrier, KindEntered) },
		leave: func() *barrierStep { return call(h.LeaveBarrier, KindLeft) },
	}
}

// enterMembers has the members enter one at a time, learning each one's
// node name as it appears, and returns them sorted by name once all passed.
func enterMembers(t *testing.T, ctx context.Context, obs *observer, path string, members []*barrierMember) []*barrierMember {
	t.Helper()
	steps := make([]*barrierStep, len(members))
	var known []string
	for i, m := range members {
		steps[i] = m.enter()
		waitFor(t, ctx, fmt.Sprintf("member %d's node under %s", i+1, path), func() (bool, error) {
			kids, err := obs.children(path)
			kids = slices.DeleteFunc(kids, func(k string) bool { return k == "ready" || slices.Contains(known, k) })
			if len(kids) == 1 {
				m.name = kids[0]
			}
			return len(kids) == 1, err
		})
		known = append(known, m.name)
		if i < len(members)-1 && steps[i].returned() {
			t.Fatalf("%s passed enter with %d of %d members: %v", m, i+1, len(members), steps[i].err)
		}
	}
	for i, s := range steps {
		if err := s.wait(ctx); err != nil {
			t.Fatalf("%s: enter: %v", members[i], err)
		}
	}
	sorted := slices.Clone(members)
	slices.SortFunc(sorted, func(a, b *barrierMember) int { return strings.Compare(a.name, b.name) })
	return sorted
}

// leaveInOrder has the members (sorted by node name) leave one by one as the
// script says, each settled before the next starts: a member that is not
// the lowest has deleted its node; the lowest watches the highest and still
// has its node. Then no leave has returned; every leave returns after the
// last member started leaving; and the lowest's node is the last deleted.
func leaveInOrder(t *testing.T, ctx context.Context, srv *zktest.Server, obs *observer, gone *deletions, path string, members []*barrierMember, script string) {
	t.Helper()
	n := len(members)
	lowest, highest := members[0], members[n-1]
	for _, m := range members {
		if err := gone.watch(m.path(path)); err != nil {
			t.Fatal(err)
		}
	}
	order := slices.Clone(members)
	if script == "lowest second to last" {
		order = append(slices.Clone(members[1:n-1]), lowest, highest)
	}
	steps := make([]*barrierStep, 0, n)
	var lastStarted time.Time
	for k, m := range order {
		if k == n-1 {
			lastStarted = now()
		}
		steps = append(steps, m.leave())
		if k == n-1 {
			break
		}
		settled, cancel := context.WithTimeout(ctx, settleWait)
		defer cancel()
		if m == lowest {
			waitFor(t, settled, fmt.Sprintf("%s to watch %s, the highest", m, highest), func() (bool, error) {
				counts, err := srv.WatchCounts(ctx)
				return counts[highest.path(path)] > 0, err
			})
			if ok, _, err := obs.conn.Exists(m.path(path)); err != nil || !ok {
				t.Fatalf("%s, the lowest, deleted its node while %d members had not started leaving (%v)", m, n-1-k, err)
			}
		} else {
			waitFor(t, settled, fmt.Sprintf("%s to delete its node", m), func() (bool, error) {
				ok, _, err := obs.conn.Exists(m.path(path))
				return !ok, err
			})
		}
		for i, s := range steps {
			if s.returned() {
				t.Fatalf("%s returned from leave (%v) while %d members had not started leaving", order[i], s.err, n-1-k)
			}
		}
	}
	all, cancel := context.WithTimeout(ctx, barrierCallTimeout)
	defer cancel()
	for i, s := range steps {
		if err := s.wait(all); err != nil {
			t.Fatalf("%s: leave: %v", order[i], err)
		}
		if s.at.Before(lastStarted) {
			t.Errorf("%s returned from leave %v before the last member started leaving", order[i], lastStarted.Sub(s.at))
		}
	}
	waitFor(t, ctx, "no member or ready node left under "+path, func() (bool, error) {
		kids, err := obs.children(path)
		return len(kids) == 0, err
	})
	var deleted []string
	waitFor(t, ctx, "the members' deletions seen", func() (bool, error) {
		deleted = gone.under(path)
		return len(deleted) == n, nil
	})
	if deleted[n-1] != lowest.path(path) {
		t.Errorf("deletions in the order %v, want %s, the lowest, last", deleted, lowest)
	}
}

// path is the member's node path under the barrier path p.
func (m *barrierMember) path(p string) string { return p + "/" + m.name }

// deletions records, in the order the server made them, the deletions of
// the nodes it watches.
type deletions struct {
	conn *zk.Conn
	mu   sync.Mutex
	seen []string
}

func newDeletions(t *testing.T, connect string) *deletions {
	t.Helper()
	d := &deletions{}
	conn, _, err := zk.Connect([]string{connect}, 4*time.Second, zk.WithLogger(quietLogger{}), zk.WithEventCallback(func(ev zk.Event) {
		if ev.Type == zk.EventNodeDeleted {
			d.mu.Lock()
			d.seen = append(d.seen, ev.Path)
			d.mu.Unlock()
		}
	}))
	if err != nil {
		t.Fatalf("deletions: connect %s: %v", connect, err)
	}
	t.Cleanup(conn.Close)
	d.conn = conn
	return d
}

// watch watches nodePath, which must exist, for its deletion.
func (d *deletions) watch(nodePath string) error {
	ok, _, _, err := d.conn.ExistsW(nodePath)
	if err == nil && !ok {
		err = fmt.Errorf("deletions: %s does not exist", nodePath)
	}
	return err
}

// under returns the deletions seen of children of p, in order.
func (d *deletions) under(p string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for _, s := range d.seen {
		if strings.HasPrefix(s, p+"/") {
			out = append(out, s)
		}
	}
	return out
}
