package queue_test

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/internal/clock"
	"github.com/zkcurator/zkcurator/recipes/queue"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// TestDelayQueueRetriesAFailedItemBeforeTheNextDue: a due item whose take
// failed is tried again after the loop's retry pause, not only when a
// later item falls due: the loop's only timer is the retry's, and the item
// is taken once the queue's clock has moved on by the pause, not before.
func TestDelayQueueRetriesAFailedItemBeforeTheNextDue(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, queueWait)
	c := zkclient.New(t, srv.ConnectString())
	observer := zkclient.New(t, srv.ConnectString())
	// A lock path the consumer may read but not write: taking an item fails.
	_, err := observer.Create(ctx, "/dr-locks", nil, framework.WithACL(zk.WorldACL(zk.PermRead)...))
	zktest.Must(t, err)
	start := time.Now().Truncate(time.Millisecond)
	clk := clock.NewFake(start)
	var r recorder
	q, err := queue.NewDistributedDelayQueue(c, "/dr", queue.JSON[string](), queue.WithLockPath("/dr-locks"),
		queue.WithConsumer(r.consume), queue.WithClock(clk))
	zktest.Must(t, err)
	zktest.Must(t, q.Start(ctx))
	defer q.Close()
	_, err = q.Put(ctx, "later", start.Add(time.Hour))
	zktest.Must(t, err)
	_, err = q.Put(ctx, "now", start)
	zktest.Must(t, err)
	// Only a failed take arms a timer for the retry pause (the later item's
	// is an hour away).
	awaitTimer(t, clk, start.Add(queue.RetryPause))
	// The lock path goes; the consumer makes it again on its next attempt,
	// which waits for the retry pause, not for the later item.
	zktest.Must(t, observer.Delete(ctx, "/dr-locks"))
	clk.Advance(queue.RetryPause - time.Millisecond)
	if got := r.items(); len(got) != 0 {
		t.Fatalf("consumed %q before the retry pause passed", got)
	}
	clk.Advance(time.Millisecond)
	awaitCount(t, 1, 15*time.Second, &r)
	if got := r.items(); len(got) != 1 || got[0] != "now" {
		t.Errorf("consumed %q, want [now]", got)
	}
}
