package queue_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/recipes/queue"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// TestPutMultiRequeueKeepsOnlyTheRest: in lock path mode with Requeue, a
// PutMulti node whose second item fails goes back holding the second and
// later items only: the first, consumed already, is not delivered again.
func TestPutMultiRequeueKeepsOnlyTheRest(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, queueWait)
	c := zkclient.New(t, srv.ConnectString())
	var failed atomic.Bool
	var r recorder
	r.block = func(_ context.Context, item string) error {
		if item == "b" && failed.CompareAndSwap(false, true) {
			return errors.New("b fails once")
		}
		return nil
	}
	q, err := queue.NewDistributedQueue(c, "/mr", queue.JSON[string](), queue.WithLockPath("/mr-locks"), queue.WithConsumer(r.consume))
	zktest.Must(t, err)
	zktest.Must(t, q.Start(ctx))
	defer q.Close()
	_, err = q.PutMulti(ctx, []string{"a", "b", "c"})
	zktest.Must(t, err)
	awaitCount(t, 3, 20*time.Second, &r)
	awaitEmpty(t, c, "/mr", 10*time.Second)
	awaitEmpty(t, c, "/mr-locks", 10*time.Second)
	exactlyOnce(t, []string{"a", "b", "c"}, &r)
}

// TestCloseMidPutMultiKeepsOnlyTheRest: Close while a consumer is on the
// second item of a PutMulti node leaves the node holding the second and
// later items: the next consumer does not get the first again.
func TestCloseMidPutMultiKeepsOnlyTheRest(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, queueWait)
	c := zkclient.New(t, srv.ConnectString())
	in := make(chan struct{}, 1)
	var first, second recorder
	first.block = func(ctx context.Context, item string) error {
		if item == "b" {
			in <- struct{}{}
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	}
	q, err := queue.NewDistributedQueue(c, "/mc", queue.JSON[string](), queue.WithLockPath("/mc-locks"), queue.WithConsumer(first.consume))
	zktest.Must(t, err)
	zktest.Must(t, q.Start(ctx))
	_, err = q.PutMulti(ctx, []string{"a", "b", "c"})
	zktest.Must(t, err)
	select {
	case <-in:
	case <-time.After(20 * time.Second):
		t.Fatal("the consumer did not reach the second item")
	}
	zktest.Must(t, q.Close())
	q2, err := queue.NewDistributedQueue(c, "/mc", queue.JSON[string](), queue.WithLockPath("/mc-locks"), queue.WithConsumer(second.consume))
	zktest.Must(t, err)
	zktest.Must(t, q2.Start(ctx))
	defer q2.Close()
	awaitCount(t, 3, 20*time.Second, &first, &second)
	awaitEmpty(t, c, "/mc", 10*time.Second)
	awaitEmpty(t, c, "/mc-locks", 10*time.Second)
	exactlyOnce(t, []string{"a", "b", "c"}, &first, &second)
}
