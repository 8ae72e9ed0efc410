package metricstest

import (
	"context"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// HandOff plays the scripted part every metrics test shares: a acquires, b
// queues and watches a's node, a releases and b is handed the lock, which b
// then holds. Both mutexes are on one path of srv.
func HandOff(tb testing.TB, ctx context.Context, srv *zktest.Server, a, b *locks.InterProcessMutex) {
	tb.Helper()
	if err := a.Acquire(ctx); err != nil {
		tb.Fatal(err)
	}
	got := make(chan error, 1)
	go func() { got <- b.Acquire(ctx) }()
	zktest.Eventually(tb, 10*time.Second, "b watching a's node", func() bool {
		nodes, err := a.ParticipantNodes(ctx)
		if err != nil || len(nodes) != 2 {
			return false
		}
		watches, err := srv.WatchCounts(ctx)
		return err == nil && watches[nodes[0]] > 0
	})
	if err := a.Release(ctx); err != nil {
		tb.Fatal(err)
	}
	if err := <-got; err != nil {
		tb.Fatal(err)
	}
}
