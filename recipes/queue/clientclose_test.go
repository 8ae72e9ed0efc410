package queue_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/queue"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// TestNothingOutlivesTheClientsClose: a consumer whose client is closed,
// and whose queue is not, leaves no goroutine behind, also when it was
// inside an item (whose ctx then ends, with the cause
// framework.ErrClosed).
func TestNothingOutlivesTheClientsClose(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, queueWait)
	before := goleak.IgnoreCurrent()
	c, err := framework.NewClient(srv.ConnectString(), zkclient.TestRetryPolicy, framework.WithSessionTimeout(2*time.Second))
	zktest.Must(t, err)
	zktest.Must(t, c.Start())
	in, ended := make(chan struct{}, 1), make(chan error, 1)
	q, err := queue.NewDistributedQueue(c, "/cc", queue.JSON[string](), queue.WithLockPath("/cc-locks"),
		queue.WithConsumer(func(ctx context.Context, _ string) error {
			in <- struct{}{}
			<-ctx.Done()
			ended <- context.Cause(ctx)
			return ctx.Err()
		}))
	zktest.Must(t, err)
	zktest.Must(t, q.Start(ctx))
	_, err = q.Put(ctx, "x")
	zktest.Must(t, err)
	select {
	case <-in:
	case <-time.After(20 * time.Second):
		t.Fatal("no item taken")
	}
	zktest.Must(t, c.Close())
	select {
	case cause := <-ended:
		if !errors.Is(cause, framework.ErrClosed) {
			t.Errorf("the consumer's ctx ended with cause %v, want framework.ErrClosed", cause)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the consumer's ctx did not end with its client")
	}
	if err := goleak.Find(before); err != nil {
		t.Errorf("after the client's Close: %v", err)
	}
	zktest.Must(t, q.Close())
}
