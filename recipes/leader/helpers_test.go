package leader_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/leader"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// shortSession is the session timeout of clients whose sessions a test
// expires.
const shortSession = 1500 * time.Millisecond

func newProxy(t *testing.T, target string) *zktest.Proxy {
	t.Helper()
	p, err := zktest.NewProxy(target)
	if err != nil {
		t.Fatalf("NewProxy(%s): %v", target, err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// newLatch builds a latch, failing the test on an error.
func newLatch(t *testing.T, c *framework.Client, dir, id string, opts ...leader.LatchOption) *leader.LeaderLatch {
	t.Helper()
	l, err := leader.NewLeaderLatch(c, dir, id, opts...)
	if err != nil {
		t.Fatalf("NewLeaderLatch(%q, %q): %v", dir, id, err)
	}
	return l
}

// newSelector builds a selector, failing the test on an error.
func newSelector(t *testing.T, c *framework.Client, dir, id string, fn leader.LeadFunc, opts ...leader.SelectorOption) *leader.LeaderSelector {
	t.Helper()
	s, err := leader.NewLeaderSelector(c, dir, id, fn, opts...)
	if err != nil {
		t.Fatalf("NewLeaderSelector(%q, %q): %v", dir, id, err)
	}
	return s
}

// startLatch starts a latch and closes it when the test ends, if the test
// has not.
func startLatch(t *testing.T, c *framework.Client, dir, id string, opts ...leader.LatchOption) *leader.LeaderLatch {
	t.Helper()
	l := newLatch(t, c, dir, id, opts...)
	zktest.Must(t, l.Start())
	t.Cleanup(func() { _ = l.Close(context.Background()) })
	return l
}

// await waits for l to lead, within d.
func await(t *testing.T, l *leader.LeaderLatch, d time.Duration) leader.Term {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	term, err := l.Await(ctx)
	if err != nil {
		t.Fatalf("%s: Await: %v", l.ID(), err)
	}
	return term
}

// waitEnded waits for the term's context to end, within d, and returns its cause.
func waitEnded(t *testing.T, term leader.Term, d time.Duration) error {
	t.Helper()
	select {
	case <-term.Done():
		return context.Cause(term.Context())
	case <-time.After(d):
		t.Fatalf("term %s (token %d) still live after %v", term.Node, term.Token, d)
		return nil
	}
}

// children returns the node names under dir, none when dir does not exist.
func children(t *testing.T, c *framework.Client, dir string) []string {
	t.Helper()
	ch, _, err := c.Children(context.Background(), dir)
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	zktest.Must(t, err)
	return ch
}

// waitChildren waits until dir has n children and returns them.
func waitChildren(t *testing.T, c *framework.Client, dir string, n int) []string {
	t.Helper()
	var ch []string
	zktest.Eventually(t, 10*time.Second, fmt.Sprintf("%d children under %s", n, dir), func() bool {
		ch = children(t, c, dir)
		return len(ch) == n
	})
	return ch
}

// ids returns the participants' ids in order.
func ids(ps []leader.Participant) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.ID
		if p.Leader != (i == 0) {
			out[i] += "(leader flag wrong)"
		}
	}
	return out
}

// owner returns the ephemeral owner of node, 0 when it is gone.
func owner(t *testing.T, c *framework.Client, node string) int64 {
	t.Helper()
	stat, err := c.Exists(context.Background(), node)
	zktest.Must(t, err)
	if stat == nil {
		return 0
	}
	return stat.EphemeralOwner
}
