package cache_test

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func testCtx(t *testing.T) context.Context { return zktest.Context(t, 60*time.Second) }

func must(t *testing.T, err error) { t.Helper(); zktest.Must(t, err) }

// startTree starts a TreeCache of root, closed at the end of the test.
func startTree(t *testing.T, c *framework.Client, root string, opts ...cache.Option) *cache.TreeCache {
	t.Helper()
	tc, err := cache.NewTreeCache(c, root, opts...)
	must(t, err)
	t.Cleanup(func() { tc.Close() })
	must(t, tc.Start(testCtx(t)))
	return tc
}

// next returns the next event, failing the test after 10 s.
func next(t *testing.T, events <-chan cache.Event) cache.Event {
	t.Helper()
	select {
	case ev, ok := <-events:
		if !ok {
			t.Fatal("the events channel closed")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10 s")
	}
	return cache.Event{}
}

// expect reads the next events and checks their types and paths ("" for
// none) in order.
func expect(t *testing.T, events <-chan cache.Event, want ...string) {
	t.Helper()
	for _, w := range want {
		ev := next(t, events)
		got := ev.Type.String()
		if ev.Node.Path != "" {
			got += " " + ev.Node.Path
		}
		if got != w {
			t.Fatalf("event %q, want %q", got, w)
		}
	}
}
