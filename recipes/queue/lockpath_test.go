package queue_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/recipes/queue"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// TestLockPathOrder checks Curator's order: while the consumer runs, its
// ephemeral lock node "<lockPath>/<item name>" and the item both exist;
// afterwards both are gone.
func TestLockPathOrder(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, queueWait)
	c := zkclient.New(t, srv.ConnectString())
	observer := zkclient.New(t, srv.ConnectString())
	type seen struct {
		lockOwner int64
		itemThere bool
	}
	seenCh := make(chan seen, 1)
	q, err := queue.NewDistributedQueue(c, "/lq", queue.JSON[string](), queue.WithLockPath("/lq-locks"),
		queue.WithConsumer(func(ctx context.Context, item string) error {
			items := children(t, observer, "/lq")
			if len(items) != 1 {
				t.Errorf("items while consuming: %q", items)
				seenCh <- seen{}
				return nil
			}
			stat, err := observer.Exists(ctx, "/lq-locks/"+items[0])
			itemStat, _ := observer.Exists(ctx, "/lq/"+items[0])
			s := seen{itemThere: itemStat != nil}
			if err == nil && stat != nil {
				s.lockOwner = stat.EphemeralOwner
			}
			seenCh <- s
			return nil
		}))
	zktest.Must(t, err)
	zktest.Must(t, q.Start(ctx))
	defer q.Close()
	_, err = q.Put(ctx, "x")
	zktest.Must(t, err)
	select {
	case s := <-seenCh:
		if s.lockOwner != c.SessionID() || !s.itemThere {
			t.Errorf("while consuming: lock owner %#x (want our session %#x), item there %v", s.lockOwner, c.SessionID(), s.itemThere)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("not consumed")
	}
	awaitEmpty(t, observer, "/lq", 10*time.Second)
	awaitEmpty(t, observer, "/lq-locks", 10*time.Second)
}

// TestErrorModes: in Requeue mode a failing item goes back (keeping its id)
// and is taken again; in Delete mode it is deleted anyway.
func TestErrorModes(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, queueWait)
	c := zkclient.New(t, srv.ConnectString())
	for _, mode := range []queue.ErrorMode{queue.Requeue, queue.Delete} {
		t.Run(mode.String(), func(t *testing.T) {
			path, locks := "/em-"+mode.String(), "/em-locks-"+mode.String()
			var calls atomic.Int32
			done := make(chan string, 4)
			q, err := queue.NewDistributedIDQueue(c, path, queue.JSON[string](), queue.WithLockPath(locks), queue.WithErrorMode(mode),
				queue.WithConsumer(func(_ context.Context, item string) error {
					if calls.Add(1) == 1 {
						return errors.New("first attempt fails")
					}
					done <- item
					return nil
				}))
			zktest.Must(t, err)
			zktest.Must(t, q.Start(ctx))
			defer q.Close()
			_, err = q.Put(ctx, "job", "id-1")
			zktest.Must(t, err)
			if mode == queue.Requeue {
				select {
				case got := <-done:
					if got != "job" {
						t.Errorf("got %q", got)
					}
				case <-time.After(20 * time.Second):
					t.Fatal("the requeued item was not taken again")
				}
			}
			awaitEmpty(t, c, path, 10*time.Second)
			awaitEmpty(t, c, locks, 10*time.Second)
			if mode == queue.Delete && calls.Load() != 1 {
				t.Errorf("Delete mode: consumer called %d times, want 1", calls.Load())
			}
		})
	}
}

// TestRequeueKeepsId: a requeued item keeps its id in its new name.
func TestRequeueKeepsId(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, queueWait)
	c := zkclient.New(t, srv.ConnectString())
	release := make(chan struct{})
	var calls atomic.Int32
	q, err := queue.NewDistributedIDQueue(c, "/rk", queue.JSON[string](), queue.WithLockPath("/rk-locks"),
		queue.WithConsumer(func(ctx context.Context, _ string) error {
			if calls.Add(1) == 1 {
				return errors.New("fail once")
			}
			select {
			case <-release:
			case <-ctx.Done():
			}
			return ctx.Err()
		}))
	zktest.Must(t, err)
	zktest.Must(t, q.Start(ctx))
	defer q.Close()
	first, err := q.Put(ctx, "v", "keep-me")
	zktest.Must(t, err)
	zktest.Eventually(t, 20*time.Second, "the item to be requeued", func() bool { return calls.Load() >= 2 })
	names := children(t, c, "/rk")
	if len(names) != 1 || !strings.HasPrefix(names[0], "queue-|keep-me|") || "/rk/"+names[0] == first {
		t.Errorf("after requeue: %q (first %s)", names, first)
	}
	close(release)
}

// TestBoundedPutWaits: with WithMaxItems a put waits for room, bounded by
// its ctx, and goes through once a consumer makes room.
func TestBoundedPutWaits(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, queueWait)
	c := zkclient.New(t, srv.ConnectString())
	q, err := queue.NewDistributedQueue(c, "/bounded", queue.JSON[int](), queue.WithMaxItems(2))
	zktest.Must(t, err)
	zktest.Must(t, q.Start(ctx))
	defer q.Close()
	for i := range 2 {
		_, err := q.Put(ctx, i)
		zktest.Must(t, err)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := q.Put(short, 2); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "waiting for room") {
		t.Fatalf("Put on a full queue = %v, want DeadlineExceeded waiting for room", err)
	}
	put := make(chan error, 1)
	go func() { _, err := q.Put(ctx, 2); put <- err }()
	names := children(t, c, "/bounded")
	slices.Sort(names)
	zktest.Must(t, c.Delete(ctx, "/bounded/"+names[0]))
	select {
	case err := <-put:
		zktest.Must(t, err)
	case <-time.After(20 * time.Second):
		t.Fatal("Put did not go through after an item was taken")
	}
	if n := len(children(t, c, "/bounded")); n != 2 {
		t.Errorf("%d items, want 2", n)
	}
}

// TestBoundedExactUnderRace: producers racing for the last room never
// push the queue over maxItems.
func TestBoundedExactUnderRace(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, queueWait)
	const max = 3
	var qs []*queue.DistributedQueue[int]
	for range 4 {
		q, err := queue.NewDistributedQueue(zkclient.New(t, srv.ConnectString()), "/race", queue.JSON[int](), queue.WithMaxItems(max))
		zktest.Must(t, err)
		zktest.Must(t, q.Start(ctx))
		defer q.Close()
		qs = append(qs, q)
	}
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	errs := make(chan error, 4*3)
	for i, q := range qs {
		for j := range 3 {
			go func() { _, err := q.Put(short, i*10+j); errs <- err }()
		}
	}
	ok := 0
	for range 4 * 3 {
		if err := <-errs; err == nil {
			ok++
		} else if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Put: %v", err)
		}
	}
	c := zkclient.New(t, srv.ConnectString())
	if n := len(children(t, c, "/race")); n != max || ok != max {
		t.Errorf("%d items, %d puts succeeded; want %d and %d", n, ok, max, max)
	}
}

// TestRemoveSkipsAHeldItem: in lock path mode Remove does not delete an
// item a consumer is consuming.
func TestRemoveSkipsAHeldItem(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, queueWait)
	c := zkclient.New(t, srv.ConnectString())
	in, release := make(chan struct{}), make(chan struct{})
	var r recorder
	r.block = func(ctx context.Context, _ string) error {
		close(in)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil
	}
	q, err := queue.NewDistributedIDQueue(c, "/rh", queue.JSON[string](), queue.WithLockPath("/rh-locks"), queue.WithConsumer(r.consume))
	zktest.Must(t, err)
	zktest.Must(t, q.Start(ctx))
	defer q.Close()
	_, err = q.Put(ctx, "held", "a")
	zktest.Must(t, err)
	<-in
	n, err := q.Remove(ctx, "a")
	zktest.Must(t, err)
	if n != 0 {
		t.Errorf("Remove of a held item = %d, want 0", n)
	}
	close(release)
	awaitCount(t, 1, 20*time.Second, &r)
	awaitEmpty(t, c, "/rh", 10*time.Second)
	awaitEmpty(t, c, "/rh-locks", 10*time.Second)
}

// TestTwoConsumersOnOneClient: two consumers sharing one client (one
// session) and one lock path take each item exactly once.
func TestTwoConsumersOnOneClient(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, queueWait)
	c := zkclient.New(t, srv.ConnectString())
	var ra, rb recorder
	slow := func(ctx context.Context, _ string) error {
		select {
		case <-time.After(5 * time.Millisecond): // work that takes a while, so the consumers meet
		case <-ctx.Done():
		}
		return nil
	}
	ra.block, rb.block = slow, slow
	var want []string
	prod, err := queue.NewDistributedQueue(c, "/two", queue.JSON[string]())
	zktest.Must(t, err)
	zktest.Must(t, prod.Start(ctx))
	defer prod.Close()
	for i := range 30 {
		want = append(want, fmt.Sprint("item-", i))
		_, err := prod.Put(ctx, want[i])
		zktest.Must(t, err)
	}
	for _, r := range []*recorder{&ra, &rb} {
		q, err := queue.NewDistributedQueue(c, "/two", queue.JSON[string](), queue.WithLockPath("/two-locks"), queue.WithConsumer(r.consume))
		zktest.Must(t, err)
		zktest.Must(t, q.Start(ctx))
		defer q.Close()
	}
	awaitCount(t, len(want), 30*time.Second, &ra, &rb)
	awaitEmpty(t, c, "/two", 10*time.Second)
	awaitEmpty(t, c, "/two-locks", 10*time.Second)
	exactlyOnce(t, want, &ra, &rb)
}
