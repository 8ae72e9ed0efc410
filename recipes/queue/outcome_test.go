package queue_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/queue"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// TestNoLockPathLostDeleteNotDelivered: without a lock path, an item whose
// delete lost its reply (and is gone) is not delivered, since another
// consumer may have taken it; the next item is.
func TestNoLockPathLostDeleteNotDelivered(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	ctx := zktest.Context(t, queueWait)
	prodc := zkclient.New(t, srv.ConnectString())
	prod, err := queue.NewDistributedQueue(prodc, "/nl", queue.JSON[string]())
	zktest.Must(t, err)
	zktest.Must(t, prod.Start(ctx))
	defer prod.Close()
	var r recorder
	q, err := queue.NewDistributedQueue(zkclient.New(t, p.Addr()), "/nl", queue.JSON[string](), queue.WithConsumer(r.consume))
	zktest.Must(t, err)
	zktest.Must(t, q.Start(ctx))
	defer q.Close()
	p.LoseNextReply(zktest.OpMulti)
	_, err = prod.Put(ctx, "lost")
	zktest.Must(t, err)
	zktest.Eventually(t, 20*time.Second, "the delete's reply to be lost", func() bool { return p.LostReplies() == 1 })
	_, err = prod.Put(ctx, "next")
	zktest.Must(t, err)
	awaitCount(t, 1, 20*time.Second, &r)
	awaitEmpty(t, prodc, "/nl", 10*time.Second)
	exactlyOnce(t, []string{"next"}, &r)
}

// TestSimpleLostRemoveReturnsUnknown: a removal whose reply was lost, with
// the node gone, returns the data and ErrOutcomeUnknown.
func TestSimpleLostRemoveReturnsUnknown(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	ctx := zktest.Context(t, queueWait)
	q, err := queue.NewSimpleDistributedQueue(zkclient.New(t, p.Addr()), "/sl")
	zktest.Must(t, err)
	_, err = q.Offer(ctx, []byte("a"))
	zktest.Must(t, err)
	p.LoseNextReply(zktest.OpMulti)
	d, err := q.Take(ctx)
	if !errors.Is(err, queue.ErrOutcomeUnknown) || string(d) != "a" {
		t.Errorf("Take with a lost reply = %q, %v; want a and ErrOutcomeUnknown", d, err)
	}
	if _, ok, err := q.Peek(ctx); ok || err != nil {
		t.Errorf("Peek after = %v, %v; want empty", ok, err)
	}
}

// TestSessionErrorPolicyKeepsItemAcrossCut: with SessionErrorPolicy a cut
// does not end the consumer's ctx; the item completes once.
func TestSessionErrorPolicyKeepsItemAcrossCut(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	ctx := zktest.Context(t, queueWait)
	c := zkclient.New(t, p.Addr(), framework.WithErrorPolicy(framework.SessionErrorPolicy))
	in, cont := make(chan struct{}), make(chan struct{})
	var r recorder
	r.block = func(ctx context.Context, _ string) error {
		close(in)
		select {
		case <-cont:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	q, err := queue.NewDistributedQueue(c, "/sp", queue.JSON[string](), queue.WithLockPath("/sp-locks"), queue.WithConsumer(r.consume))
	zktest.Must(t, err)
	zktest.Must(t, q.Start(ctx))
	defer q.Close()
	_, err = q.Put(ctx, "x")
	zktest.Must(t, err)
	<-in
	suspended := make(chan struct{}, 1)
	stop := c.Listen(func(s framework.ConnectionState) {
		if s == framework.Suspended {
			select {
			case suspended <- struct{}{}:
			default:
			}
		}
	})
	defer stop()
	p.Sever()
	select {
	case <-suspended:
	case <-time.After(20 * time.Second):
		t.Fatal("no Suspended after the cut")
	}
	close(cont)
	awaitCount(t, 1, 20*time.Second, &r)
	awaitEmpty(t, c, "/sp", 20*time.Second)
	awaitEmpty(t, c, "/sp-locks", 20*time.Second)
	exactlyOnce(t, []string{"x"}, &r)
}

// TestRequeueKeepsPriorityAndDueTime: a requeued priority or delay item
// keeps its priority or due time in its new name.
func TestRequeueKeepsPriorityAndDueTime(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, queueWait)
	c := zkclient.New(t, srv.ConnectString())
	failOnce := func(calls *atomic.Int32, hold chan struct{}) queue.Consumer[string] {
		return func(ctx context.Context, _ string) error {
			if calls.Add(1) == 1 {
				return errors.New("fail once")
			}
			select {
			case <-hold:
			case <-ctx.Done():
			}
			return ctx.Err()
		}
	}
	hold := make(chan struct{})
	defer close(hold)
	var pc, dc atomic.Int32
	pq, err := queue.NewDistributedPriorityQueue(c, "/rp", queue.JSON[string](), queue.WithLockPath("/rp-locks"), queue.WithConsumer(failOnce(&pc, hold)))
	zktest.Must(t, err)
	zktest.Must(t, pq.Start(ctx))
	defer pq.Close()
	dq, err := queue.NewDistributedDelayQueue(c, "/rd", queue.JSON[string](), queue.WithLockPath("/rd-locks"), queue.WithConsumer(failOnce(&dc, hold)))
	zktest.Must(t, err)
	zktest.Must(t, dq.Start(ctx))
	defer dq.Close()
	_, err = pq.Put(ctx, "p", -7)
	zktest.Must(t, err)
	due := time.Now().Add(-time.Minute)
	_, err = dq.Put(ctx, "d", due)
	zktest.Must(t, err)
	zktest.Eventually(t, 20*time.Second, "both items to be requeued and taken again", func() bool { return pc.Load() >= 2 && dc.Load() >= 2 })
	if names := children(t, c, "/rp"); len(names) != 1 || !strings.HasPrefix(names[0], "queue-0FFFFFFF9") {
		t.Errorf("requeued priority item: %q, want prefix queue-0FFFFFFF9", names)
	}
	if names := children(t, c, "/rd"); len(names) != 1 || !strings.Contains(names[0], fmt.Sprintf("|%X|", due.UnixMilli())) {
		t.Errorf("requeued delay item: %q, want due time %X", names, due.UnixMilli())
	}
}

// TestPutWithoutConnectionIsNotUnknown: a put that never reached a server
// fails within its ctx and is not reported as unknown.
func TestPutWithoutConnectionIsNotUnknown(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, queueWait)
	c := zkclient.New(t, srv.ConnectString())
	q, err := queue.NewDistributedQueue(c, "/nc", queue.Bytes())
	zktest.Must(t, err)
	zktest.Must(t, q.Start(ctx))
	defer q.Close()
	s, err := queue.NewSimpleDistributedQueue(c, "/nc-simple")
	zktest.Must(t, err)
	zktest.Must(t, srv.Stop())
	// Until the client has seen its connection go, a put may be written
	// to the dying connection, and its outcome is then unknown indeed.
	zktest.Eventually(t, 10*time.Second, "the client to see the server gone", func() bool {
		return !c.State().IsConnected()
	})
	short, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	began := time.Now()
	if _, err := q.Put(short, []byte("x")); err == nil || errors.Is(err, queue.ErrOutcomeUnknown) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Put with the server down = %v, want DeadlineExceeded and not ErrOutcomeUnknown", err)
	}
	if _, err := s.Offer(short, []byte("x")); err == nil || errors.Is(err, queue.ErrOutcomeUnknown) {
		t.Errorf("Offer with the server down = %v, want an error other than ErrOutcomeUnknown", err)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("the puts took %v, their ctx allowed 1s", d)
	}
}
