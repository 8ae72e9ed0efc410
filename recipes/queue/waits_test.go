package queue_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/queue"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// TestBoundedPutAfterQueueNodeDeleted: a bounded put makes the queue node
// again when it was deleted, as an unbounded one does.
func TestBoundedPutAfterQueueNodeDeleted(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, queueWait)
	c := zkclient.New(t, srv.ConnectString())
	q, err := queue.NewDistributedQueue(c, "/bgone", queue.JSON[string](), queue.WithMaxItems(5))
	zktest.Must(t, err)
	zktest.Must(t, q.Start(ctx))
	defer q.Close()
	_, err = q.Put(ctx, "before")
	zktest.Must(t, err)
	zktest.Must(t, c.Delete(ctx, "/bgone", framework.DeletingChildrenIfNeeded()))
	_, err = q.Put(ctx, "after")
	zktest.Must(t, err)
	if n := len(children(t, c, "/bgone")); n != 1 {
		t.Errorf("%d items after the put, want 1", n)
	}
}

// TestSimpleWaitWithoutConnectionSaysSo: Poll and Take that could make no
// connection within their wait return within it an error that matches
// framework.ErrNotConnected or context.DeadlineExceeded, never an empty
// queue (an item may be there).
func TestSimpleWaitWithoutConnectionSaysSo(t *testing.T) {
	c := zkclient.Unreachable(t, zkclient.SlowRetryPolicy)
	q, err := queue.NewSimpleDistributedQueue(c, "/nowhere")
	zktest.Must(t, err)
	const wait = time.Second
	const slack = 3 * time.Second // a call that ignored its wait takes the 15 s connection timeout
	failed := func(err error) bool {
		return errors.Is(err, framework.ErrNotConnected) || errors.Is(err, context.DeadlineExceeded)
	}
	began := time.Now()
	data, ok, err := q.Poll(context.Background(), wait)
	if took := time.Since(began); took > wait+slack {
		t.Errorf("Poll(%v) took %v", wait, took)
	}
	if ok || data != nil || !failed(err) {
		t.Errorf("Poll(%v) without a connection = %q, %v, %v; want an error saying no connection was made", wait, data, ok, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	began = time.Now()
	_, err = q.Take(ctx)
	if took := time.Since(began); took > wait+slack {
		t.Errorf("Take with a %v ctx took %v", wait, took)
	}
	if !failed(err) {
		t.Errorf("Take without a connection = %v", err)
	}
}
