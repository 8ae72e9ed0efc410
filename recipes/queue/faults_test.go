package queue_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/queue"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// faultRig is a producer, consumer A (through a proxy) that blocks in its
// first item until its ctx ends, and consumer B, all in lock path mode.
type faultRig struct {
	srv      *zktest.Server
	proxy    *zktest.Proxy
	a, b     *framework.Client
	ra, rb   recorder
	inItem   chan string
	items    []string
	observer *framework.Client
}

const rigPath, rigLocks = "/work", "/work-locks"

func newFaultRig(t *testing.T, n int, opts ...framework.Option) *faultRig {
	r := &faultRig{srv: zktest.StartServer(t), inItem: make(chan string, 1)}
	r.proxy = zktest.StartProxy(t, r.srv.ConnectString())
	r.a = zkclient.New(t, r.proxy.Addr(), opts...)
	r.b = zkclient.New(t, r.srv.ConnectString(), opts...)
	r.observer = zkclient.New(t, r.srv.ConnectString())
	ctx := zktest.Context(t, queueWait)
	prod, err := queue.NewDistributedQueue(r.observer, rigPath, queue.JSON[string](), queue.WithLockPath(rigLocks))
	zktest.Must(t, err)
	zktest.Must(t, prod.Start(ctx))
	defer prod.Close()
	for i := range n {
		r.items = append(r.items, fmt.Sprint("item-", i))
		_, err := prod.Put(ctx, r.items[i])
		zktest.Must(t, err)
	}
	var first atomic.Bool
	r.ra.block = func(ctx context.Context, item string) error {
		if first.CompareAndSwap(false, true) {
			r.inItem <- item
			<-ctx.Done()
			return context.Cause(ctx)
		}
		return nil
	}
	return r
}

func (r *faultRig) consumer(t *testing.T, c *framework.Client, rec *recorder) {
	q, err := queue.NewDistributedQueue(c, rigPath, queue.JSON[string](), queue.WithLockPath(rigLocks), queue.WithConsumer(rec.consume))
	zktest.Must(t, err)
	zktest.Must(t, q.Start(zktest.Context(t, queueWait)))
	t.Cleanup(func() { _ = q.Close() })
}

// startA starts consumer A and waits until it is inside its first item.
func (r *faultRig) startA(t *testing.T) string {
	r.consumer(t, r.a, &r.ra)
	select {
	case item := <-r.inItem:
		return item
	case <-time.After(20 * time.Second):
		t.Fatal("consumer A took no item")
		return ""
	}
}

// check waits until every item is completed and the queue and lock path
// are empty, then asserts that each item was completed exactly once.
func (r *faultRig) check(t *testing.T) {
	awaitCount(t, len(r.items), 60*time.Second, &r.ra, &r.rb)
	awaitEmpty(t, r.observer, rigPath, 20*time.Second)
	awaitEmpty(t, r.observer, rigLocks, 20*time.Second)
	exactlyOnce(t, r.items, &r.ra, &r.rb)
}

func TestLockPathSeverMidItem(t *testing.T) {
	r := newFaultRig(t, 12)
	r.startA(t)
	r.consumer(t, r.b, &r.rb)
	r.proxy.Sever()
	r.check(t)
}

func TestLockPathSessionExpiryMidItem(t *testing.T) {
	r := newFaultRig(t, 12)
	held := r.startA(t)
	lost, stop := zkclient.LostSignal(r.a)
	defer stop()
	r.proxy.Pause()
	r.consumer(t, r.b, &r.rb)
	select {
	case <-lost:
	case <-time.After(30 * time.Second):
		t.Fatal("A's session was not lost while paused")
	}
	// B takes the item A held once the server expired A's session.
	zktest.Eventually(t, 30*time.Second, "B to complete the item A held", func() bool {
		for _, it := range r.rb.items() {
			if it == held {
				return true
			}
		}
		return false
	})
	r.proxy.Resume()
	r.check(t)
}

func TestLockPathServerRestartMidItem(t *testing.T) {
	r := newFaultRig(t, 12)
	r.startA(t)
	zktest.Must(t, r.srv.Restart())
	r.consumer(t, r.b, &r.rb)
	r.check(t)
}

// TestPutLostReplyIsUnknownNeverDuplicated: a put whose reply is lost
// reports ErrOutcomeUnknown and leaves exactly the one node the server made.
func TestPutLostReplyIsUnknownNeverDuplicated(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, p.Addr())
	ctx := zktest.Context(t, queueWait)
	for _, bounded := range []bool{false, true} {
		path := fmt.Sprint("/lost-", bounded)
		var opts []queue.Option
		if bounded {
			opts = append(opts, queue.WithMaxItems(10))
		}
		q, err := queue.NewDistributedQueue(c, path, queue.Bytes(), opts...)
		zktest.Must(t, err)
		zktest.Must(t, q.Start(ctx))
		p.LoseNextReply(zktest.OpMulti)
		_, err = q.Put(ctx, []byte("once"))
		if !errors.Is(err, queue.ErrOutcomeUnknown) || !errors.Is(err, zk.ErrConnectionClosed) {
			t.Errorf("bounded %v: Put with a lost reply = %v, want ErrOutcomeUnknown", bounded, err)
		}
		if p.LostReplies() == 0 {
			t.Fatal("no reply was lost")
		}
		if n := len(children(t, c, path)); n != 1 {
			t.Errorf("bounded %v: %d items after a lost reply, want the 1 the server made", bounded, n)
		}
		_, err = q.Put(ctx, []byte("again"))
		zktest.Must(t, err)
		if n := len(children(t, c, path)); n != 2 {
			t.Errorf("bounded %v: %d items, want 2", bounded, n)
		}
		zktest.Must(t, q.Close())
	}
	s, err := queue.NewSimpleDistributedQueue(c, "/lost-simple")
	zktest.Must(t, err)
	_, err = s.Offer(ctx, []byte("first"))
	zktest.Must(t, err)
	p.LoseNextReply(zktest.OpMulti)
	if _, err := s.Offer(ctx, []byte("x")); !errors.Is(err, queue.ErrOutcomeUnknown) {
		t.Errorf("Offer with a lost reply = %v, want ErrOutcomeUnknown", err)
	}
	if n := len(children(t, c, "/lost-simple")); n != 2 {
		t.Errorf("simple: %d items after a lost reply, want 2", n)
	}
}

// TestConsumerLostRepliesNoDuplicate: lost replies to a consumer's lock
// create, its delete, and its requeue neither lose an item, nor deliver it
// twice, nor requeue it twice, nor leave a lock node.
func TestConsumerLostRepliesNoDuplicate(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	cons := zkclient.New(t, p.Addr())
	prodc := zkclient.New(t, srv.ConnectString())
	ctx := zktest.Context(t, queueWait)
	prod, err := queue.NewDistributedQueue(prodc, "/lr", queue.JSON[string]())
	zktest.Must(t, err)
	zktest.Must(t, prod.Start(ctx))
	defer prod.Close()
	var rec recorder
	var failed atomic.Bool
	rec.block = func(_ context.Context, item string) error {
		if item == "requeue-me" && failed.CompareAndSwap(false, true) {
			p.LoseNextReply(zktest.OpMulti) // the requeue transaction's reply
			return errors.New("fail once")
		}
		return nil
	}
	q, err := queue.NewDistributedQueue(cons, "/lr", queue.JSON[string](), queue.WithLockPath("/lr-locks"), queue.WithConsumer(rec.consume))
	zktest.Must(t, err)
	zktest.Must(t, q.Start(ctx))
	defer q.Close()

	p.LoseNextReply(zktest.OpCreate) // the lock node's create
	_, err = prod.Put(ctx, "lock-lost")
	zktest.Must(t, err)
	awaitCount(t, 1, 30*time.Second, &rec)
	p.LoseNextReply(zktest.OpMulti) // the delete transaction's reply
	_, err = prod.Put(ctx, "delete-lost")
	zktest.Must(t, err)
	awaitCount(t, 2, 30*time.Second, &rec)
	_, err = prod.Put(ctx, "requeue-me")
	zktest.Must(t, err)
	awaitCount(t, 3, 30*time.Second, &rec)
	awaitEmpty(t, prodc, "/lr", 20*time.Second)
	awaitEmpty(t, prodc, "/lr-locks", 20*time.Second)
	if p.LostReplies() != 3 {
		t.Errorf("%d replies lost, want 3", p.LostReplies())
	}
	exactlyOnce(t, []string{"lock-lost", "delete-lost", "requeue-me"}, &rec)
}
