package interop

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/queue"
)

// utf8Items is the serializer of the helper's queues: an item is its
// string's UTF-8 bytes.
type utf8Items struct{}

func (utf8Items) Serialize(s string) ([]byte, error)   { return []byte(s), nil }
func (utf8Items) Deserialize(b []byte) (string, error) { return string(b), nil }

// goTaken is what a Go consumer took, with when.
type goTaken struct {
	mu    sync.Mutex
	items []string
	at    []time.Time
}

func (g *goTaken) consume(_ context.Context, item string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.items = append(g.items, item)
	g.at = append(g.at, time.Now())
	return nil
}

func (g *goTaken) snapshot() ([]string, []time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.items), slices.Clone(g.at)
}

// awaitGo waits until the Go consumer took n items and returns them.
func (g *goTaken) await(t *testing.T, n int) ([]string, []time.Time) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		items, at := g.snapshot()
		if len(items) >= n {
			return items, at
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Go consumer took %q, want %d items", items, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// awaitNoChildren waits until path has no children: every item consumed,
// or no lock node left.
func awaitNoChildren(t *testing.T, c *framework.Client, path string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		names, _, err := c.Children(context.Background(), path)
		if err == nil && len(names) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still has %q (err %v)", path, names, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// javaItems waits for the helper's consume call to end and returns its
// ITEM events' items and times.
func javaItems(t *testing.T, ctx context.Context, c *Call, want int) ([]string, []time.Time) {
	t.Helper()
	e, err := c.Await(ctx, "CONSUMED")
	if err != nil {
		t.Fatal(err)
	}
	var items []string
	var at []time.Time
	for _, ev := range c.Events("ITEM") {
		items = append(items, ev.Field(0))
		at = append(at, ev.At)
	}
	if e.Field(0) != strconv.Itoa(want) || len(items) != want {
		t.Errorf("Curator consumed %s items (%q), want %d", e.Field(0), items, want)
	}
	return items, at
}

// startGoQueue starts q for the test and closes it at the end.
func startGoQueue(t *testing.T, q interface {
	Start(context.Context) error
	Close() error
}) {
	t.Helper()
	if err := q.Start(testContext(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = q.Close() })
}

var _ queue.Serializer[string] = utf8Items{}
