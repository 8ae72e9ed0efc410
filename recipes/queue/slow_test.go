package queue_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/recipes/queue"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// TestLockPathSlowConsumerCompletesOnce: a lock-path consumer whose work
// takes longer than the session timeout, on a healthy connection, still
// has its item deleted afterwards: the item is completed once, not taken
// again.
func TestLockPathSlowConsumerCompletesOnce(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, queueWait)
	c := zkclient.New(t, srv.ConnectString())
	work := c.SessionTimeout() + time.Second
	var calls atomic.Int32
	var r recorder
	r.block = func(ctx context.Context, _ string) error {
		calls.Add(1)
		select {
		case <-time.After(work): // longer than the session timeout
		case <-ctx.Done():
		}
		return nil
	}
	q, err := queue.NewDistributedQueue(c, "/slow", queue.JSON[string](), queue.WithLockPath("/slow-locks"), queue.WithConsumer(r.consume))
	zktest.Must(t, err)
	zktest.Must(t, q.Start(ctx))
	defer q.Close()
	_, err = q.Put(ctx, "long job")
	zktest.Must(t, err)
	awaitCount(t, 1, work+20*time.Second, &r)
	awaitEmpty(t, c, "/slow", 10*time.Second)
	awaitEmpty(t, c, "/slow-locks", 10*time.Second)
	exactlyOnce(t, []string{"long job"}, &r)
	if n := calls.Load(); n != 1 {
		t.Errorf("the consumer was called %d times, want 1", n)
	}
}
