package cache_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// outage is one way to lose the connection and get it back, and the
// connection events a cache reports for it, in order.
type outage struct {
	name   string
	opts   func(srv *zktest.Server) []framework.Option // of the client under test
	events []string
	cause  func(t *testing.T, srv *zktest.Server, p *zktest.Proxy, c *framework.Client)
}

// options returns the client options of o for a test on srv.
func (o outage) options(srv *zktest.Server) []framework.Option {
	if o.opts == nil {
		return nil
	}
	return o.opts(srv)
}

var outages = []outage{
	{
		name:   "severed",
		events: []string{"CONNECTION_SUSPENDED", "CONNECTION_RECONNECTED"},
		cause: func(t *testing.T, _ *zktest.Server, p *zktest.Proxy, c *framework.Client) {
			p.Sever()
			awaitState(t, c, framework.Suspended)
		},
	},
	{
		name:   "server restarted",
		events: []string{"CONNECTION_SUSPENDED", "CONNECTION_RECONNECTED"},
		// The session must outlast the restart, however slow the machine.
		opts: func(srv *zktest.Server) []framework.Option {
			return []framework.Option{framework.WithSessionTimeout(srv.SessionOutlastingRestart(10 * time.Second))}
		},
		cause: func(t *testing.T, srv *zktest.Server, _ *zktest.Proxy, c *framework.Client) {
			must(t, srv.Restart())
		},
	},
	{
		name:   "session expired",
		events: []string{"CONNECTION_SUSPENDED", "CONNECTION_LOST", "CONNECTION_RECONNECTED"},
		opts: func(*zktest.Server) []framework.Option {
			return []framework.Option{framework.WithSessionTimeout(time.Second)}
		},
		cause: func(t *testing.T, _ *zktest.Server, p *zktest.Proxy, c *framework.Client) {
			p.Pause()
			awaitState(t, c, framework.Lost)
			p.Resume()
		},
	},
	{
		name:   "session given up (simulated expiry)",
		events: []string{"CONNECTION_SUSPENDED", "CONNECTION_LOST", "CONNECTION_RECONNECTED"},
		opts: func(*zktest.Server) []framework.Option {
			return []framework.Option{framework.WithSessionTimeout(8 * time.Second), framework.WithSimulatedSessionExpirationPercent(25)}
		},
		cause: func(t *testing.T, _ *zktest.Server, p *zktest.Proxy, c *framework.Client) {
			p.Pause()
			awaitState(t, c, framework.Lost)
			p.Resume()
		},
	},
}

func awaitState(t *testing.T, c *framework.Client, s framework.ConnectionState) {
	t.Helper()
	zktest.Eventually(t, 30*time.Second, "the client "+s.String(), func() bool { return c.State() == s })
}

// A reconnect, in the same session or a new one, after which nothing
// changed, is reported by its connection events alone: reading the tree
// again finds every node as held and reports none of them.
func TestReconnectWithoutChangesIsQuiet(t *testing.T) {
	for _, o := range outages {
		t.Run(o.name, func(t *testing.T) {
			srv := zktest.StartServer(t)
			p := zktest.StartProxy(t, srv.ConnectString())
			c := zkclient.New(t, p.Addr(), o.options(srv)...)
			ctx := testCtx(t)
			for _, n := range []string{"/quiet/a/x", "/quiet/a/y", "/quiet/b"} {
				_, err := c.Create(ctx, n, []byte(n), framework.CreatingParentsIfNeeded())
				must(t, err)
			}
			_, err := c.SetData(ctx, "/quiet/b", []byte("v1"), -1)
			must(t, err)
			tc := startTree(t, c, "/quiet")
			ev := tc.Events()
			expect(t, ev, "NODE_ADDED /quiet", "NODE_ADDED /quiet/a", "NODE_ADDED /quiet/a/x", "NODE_ADDED /quiet/a/y", "NODE_ADDED /quiet/b", "INITIALIZED")

			o.cause(t, srv, p, c)
			expect(t, ev, o.events...)
			// The next events are those of later changes, one by one: the
			// cache's second reading of the tree reported nothing.
			_, err = c.Create(ctx, "/quiet/zz", nil)
			must(t, err)
			expect(t, ev, "NODE_ADDED /quiet/zz")
			for i := range 3 {
				_, err := c.SetData(ctx, "/quiet/a/x", []byte(fmt.Sprint(i)), -1)
				must(t, err)
				if e := next(t, ev); e.String() != fmt.Sprintf("NODE_UPDATED /quiet/a/x (version %d)", i+1) {
					t.Fatalf("after set %d of /quiet/a/x: %v", i+1, e)
				}
			}
		})
	}
}

// WithMaxDepth and WithSelector hold after a reconnect: reading the tree
// again neither reports nor watches a node too deep or not selected that
// appeared meanwhile.
func TestDepthAndSelectorHoldAfterAReconnect(t *testing.T) {
	for _, o := range outages {
		t.Run(o.name, func(t *testing.T) {
			srv := zktest.StartServer(t)
			p := zktest.StartProxy(t, srv.ConnectString())
			admin := zkclient.New(t, srv.ConnectString())
			c := zkclient.New(t, p.Addr(), o.options(srv)...)
			ctx := testCtx(t)
			for _, n := range []string{"/ds/keep", "/ds/skip"} {
				_, err := admin.Create(ctx, n, nil, framework.CreatingParentsIfNeeded())
				must(t, err)
			}
			tc := startTree(t, c, "/ds", cache.WithMaxDepth(1), cache.WithSelector(func(p string) bool { return p != "/ds/skip" }))
			ev := tc.Events()
			expect(t, ev, "NODE_ADDED /ds", "NODE_ADDED /ds/keep", "INITIALIZED")

			// Changes while the cache may not be watching: the outage is
			// caused first, and the changes made before the cache's
			// connection is back where the outage allows it.
			o.cause(t, srv, p, c)
			for _, n := range []string{"/ds/keep/deep", "/ds/skip/x", "/ds/new"} {
				_, err := admin.Create(ctx, n, nil)
				must(t, err)
			}
			got := map[string]bool{}
			for range len(o.events) + 1 {
				e := next(t, ev)
				s := e.Type.String()
				if e.Node.Path != "" {
					s += " " + e.Node.Path
				}
				got[s] = true
			}
			for _, w := range append(slices.Clone(o.events), "NODE_ADDED /ds/new") {
				if !got[w] {
					t.Fatalf("after the outage: %v, want %q among them", got, w)
				}
			}
			_, err := admin.Create(ctx, "/ds/zz", nil)
			must(t, err)
			expect(t, ev, "NODE_ADDED /ds/zz")
			var paths []string
			for _, n := range tc.Snapshot() {
				paths = append(paths, n.Path)
			}
			if !slices.Equal(paths, []string{"/ds", "/ds/keep", "/ds/new", "/ds/zz"}) {
				t.Fatalf("Snapshot paths %v", paths)
			}
			watched, err := srv.WatchCounts(ctx)
			must(t, err)
			for _, n := range []string{"/ds/skip", "/ds/skip/x", "/ds/keep/deep"} {
				if watched[n] > 0 {
					t.Errorf("%s is watched (%v)", n, watched)
				}
			}
		})
	}
}
