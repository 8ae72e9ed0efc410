package queue_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// queueWait bounds a test's calls: longer than zktest.DefaultWait, for the
// tests that wait on slow consumers and several items.
const queueWait = 90 * time.Second

// recorder is a consumer that records what it completed, in order.
type recorder struct {
	mu   sync.Mutex
	done []string
	// block, when set, is called first; an error from it is returned.
	block func(ctx context.Context, item string) error
}

func (r *recorder) consume(ctx context.Context, item string) error {
	if r.block != nil {
		if err := r.block(ctx, item); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err // not completed: the lock is not certain
	}
	r.mu.Lock()
	r.done = append(r.done, item)
	r.mu.Unlock()
	return nil
}

func (r *recorder) items() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.done...)
}

// children lists path's children, failing the test on an error.
func children(t *testing.T, c *framework.Client, path string) []string {
	t.Helper()
	names, _, err := c.Children(zktest.Context(t, queueWait), path)
	zktest.Must(t, err)
	return names
}

// awaitEmpty waits until path has no children: for a lock path, no orphan
// lock node; for a queue, every item taken.
func awaitEmpty(t *testing.T, c *framework.Client, path string, d time.Duration) {
	t.Helper()
	zktest.Eventually(t, d, path+" to have no children", func() bool {
		names, _, err := c.Children(context.Background(), path)
		return err == nil && len(names) == 0
	})
}

// exactlyOnce fails unless every want item was completed exactly once
// across the recorders.
func exactlyOnce(t *testing.T, want []string, rs ...*recorder) {
	t.Helper()
	count := map[string]int{}
	for _, r := range rs {
		for _, it := range r.items() {
			count[it]++
		}
	}
	for _, w := range want {
		if count[w] != 1 {
			t.Errorf("item %q completed %d times, want 1", w, count[w])
		}
		delete(count, w)
	}
	for it, n := range count {
		t.Errorf("unexpected item %q completed %d times", it, n)
	}
}

func awaitCount(t *testing.T, n int, d time.Duration, rs ...*recorder) {
	t.Helper()
	zktest.Eventually(t, d, "the consumers to complete the items", func() bool {
		total := 0
		for _, r := range rs {
			total += len(r.items())
		}
		return total >= n
	})
}
