package queue_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/queue"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// TestCloseMidItemLeavesItem: Close cancels the consumer's ctx, waits for
// it to return, and in lock path mode leaves its item and no lock node.
func TestCloseMidItemLeavesItem(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, queueWait)
	c := zkclient.New(t, srv.ConnectString())
	in := make(chan struct{})
	returned := make(chan error, 1)
	q, err := queue.NewDistributedQueue(c, "/cl", queue.JSON[string](), queue.WithLockPath("/cl-locks"),
		queue.WithConsumer(func(ctx context.Context, _ string) error {
			close(in)
			<-ctx.Done()
			returned <- ctx.Err()
			return ctx.Err()
		}))
	zktest.Must(t, err)
	zktest.Must(t, q.Start(ctx))
	_, err = q.Put(ctx, "x")
	zktest.Must(t, err)
	select {
	case <-in:
	case <-time.After(20 * time.Second):
		t.Fatal("not consumed")
	}
	zktest.Must(t, q.Close())
	select {
	case err := <-returned:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("consumer ctx ended with %v", err)
		}
	default:
		t.Fatal("Close returned before the consumer did")
	}
	if n := len(children(t, c, "/cl")); n != 1 {
		t.Errorf("%d items after Close mid-item, want the item left", n)
	}
	awaitEmpty(t, c, "/cl-locks", 10*time.Second)
	zktest.Must(t, q.Close())
}

// TestConsumerCtxCauseIsItemLost: a cut cancels a lock-path consumer's ctx
// with ErrItemLost.
func TestConsumerCtxCauseIsItemLost(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, p.Addr())
	ctx := zktest.Context(t, queueWait)
	in := make(chan struct{}, 1)
	cause := make(chan error, 1)
	first := true
	q, err := queue.NewDistributedQueue(c, "/cause", queue.JSON[string](), queue.WithLockPath("/cause-locks"),
		queue.WithConsumer(func(ctx context.Context, _ string) error {
			if !first {
				return nil
			}
			first = false
			in <- struct{}{}
			<-ctx.Done()
			cause <- context.Cause(ctx)
			return ctx.Err()
		}))
	zktest.Must(t, err)
	zktest.Must(t, q.Start(ctx))
	defer q.Close()
	_, err = q.Put(ctx, "x")
	zktest.Must(t, err)
	<-in
	p.Sever()
	select {
	case err := <-cause:
		if !errors.Is(err, queue.ErrItemLost) {
			t.Errorf("cause %v, want ErrItemLost", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the consumer's ctx did not end after a cut")
	}
	awaitEmpty(t, c, "/cause", 20*time.Second) // taken again after the reconnect
}

// TestCorruptedItemDropped: Start on a closed client
// fails with framework.ErrClosed; an item that is not Curator's envelope is
// logged and dropped, as Curator does, and the next item is consumed.
func TestCorruptedItemDropped(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, queueWait)
	c := zkclient.New(t, srv.ConnectString())
	_, err := c.Create(ctx, "/bad/queue-", []byte("not an envelope"), framework.WithMode(framework.PersistentSequential), framework.CreatingParentsIfNeeded())
	zktest.Must(t, err)
	var r recorder
	q, err := queue.NewDistributedQueue(c, "/bad", queue.JSON[string](), queue.WithLockPath("/bad-locks"), queue.WithConsumer(r.consume))
	zktest.Must(t, err)
	zktest.Must(t, q.Start(ctx))
	defer q.Close()
	_, err = q.Put(ctx, "good")
	zktest.Must(t, err)
	awaitCount(t, 1, 20*time.Second, &r)
	awaitEmpty(t, c, "/bad", 10*time.Second)
	if got := r.items(); !slices.Equal(got, []string{"good"}) {
		t.Errorf("consumed %q", got)
	}

	closed := zkclient.New(t, srv.ConnectString())
	zktest.Must(t, closed.Close())
	q2, err := queue.NewDistributedQueue(closed, "/bad2", queue.Bytes())
	zktest.Must(t, err)
	if err := q2.Start(ctx); !errors.Is(err, framework.ErrClosed) {
		t.Errorf("Start on a closed client: %v", err)
	}
}

// TestQueueNodeDeletedAndRecreated: when the queue node is deleted, the
// consumer makes it again and a later put (which also makes it again) is
// consumed.
func TestQueueNodeDeletedAndRecreated(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, queueWait)
	c := zkclient.New(t, srv.ConnectString())
	var r recorder
	cons, err := queue.NewDistributedQueue(zkclient.New(t, srv.ConnectString()), "/gone", queue.JSON[string](), queue.WithConsumer(r.consume))
	zktest.Must(t, err)
	zktest.Must(t, cons.Start(ctx))
	defer cons.Close()
	prod, err := queue.NewDistributedQueue(c, "/gone", queue.JSON[string]())
	zktest.Must(t, err)
	zktest.Must(t, prod.Start(ctx))
	defer prod.Close()
	_, err = prod.Put(ctx, "before")
	zktest.Must(t, err)
	awaitCount(t, 1, 20*time.Second, &r)
	zktest.Must(t, c.Delete(ctx, "/gone", framework.DeletingChildrenIfNeeded()))
	_, err = prod.Put(ctx, "after")
	zktest.Must(t, err)
	awaitCount(t, 2, 20*time.Second, &r)
	exactlyOnce(t, []string{"before", "after"}, &r)
}

// TestCloseDuringAFailedStartStaysClosed: a Close that comes while Start is
// creating the queue node is final even when that create then fails: the
// failed Start does not make the queue startable again.
func TestCloseDuringAFailedStartStaysClosed(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, p.Addr())
	q, err := queue.NewDistributedQueue(c, "/cs", queue.Bytes())
	zktest.Must(t, err)
	p.Pause()
	startCtx, cancel := context.WithCancel(zktest.Context(t, queueWait))
	started := make(chan error, 1)
	go func() { started <- q.Start(startCtx) }()
	// A put with an ended ctx says ErrNotStarted until Start has begun, and
	// is refused as not sent afterwards.
	gone, end := context.WithCancel(context.Background())
	end()
	zktest.Eventually(t, 20*time.Second, "Start to begin", func() bool {
		_, err := q.Put(gone, []byte("x"))
		return !errors.Is(err, queue.ErrNotStarted)
	})
	zktest.Must(t, q.Close())
	cancel() // the create of the queue node fails
	select {
	case err := <-started:
		if err == nil {
			t.Fatal("Start succeeded while its create was held")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Start did not return once its ctx ended")
	}
	p.Resume()
	if err := q.Start(zktest.Context(t, queueWait)); !errors.Is(err, queue.ErrClosed) {
		t.Fatalf("Start after Close: %v, want ErrClosed", err)
	}
}
