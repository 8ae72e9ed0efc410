package queue_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/internal/clock"
	"github.com/zkcurator/zkcurator/recipes/queue"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

func TestFIFOWithPutMulti(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, queueWait)
	prod, err := queue.NewDistributedQueue(zkclient.New(t, srv.ConnectString()), "/fifo", queue.JSON[string]())
	zktest.Must(t, err)
	zktest.Must(t, prod.Start(ctx))
	defer prod.Close()
	var want []string
	for i := range 10 {
		if i == 4 {
			_, err := prod.PutMulti(ctx, []string{"m0", "m1", "m2"})
			zktest.Must(t, err)
			want = append(want, "m0", "m1", "m2")
			continue
		}
		_, err := prod.Put(ctx, fmt.Sprint("i", i))
		zktest.Must(t, err)
		want = append(want, fmt.Sprint("i", i))
	}
	var r recorder
	cons, err := queue.NewDistributedQueue(zkclient.New(t, srv.ConnectString()), "/fifo", queue.JSON[string](),
		queue.WithConsumer(r.consume))
	zktest.Must(t, err)
	zktest.Must(t, cons.Start(ctx))
	awaitCount(t, len(want), 30*time.Second, &r)
	zktest.Must(t, cons.Close())
	if got := r.items(); !slices.Equal(got, want) {
		t.Errorf("consumed %q, want FIFO %q", got, want)
	}
}

func TestPriorityOrder(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, queueWait)
	c := zkclient.New(t, srv.ConnectString())
	prod, err := queue.NewDistributedPriorityQueue(c, "/prio", queue.JSON[string]())
	zktest.Must(t, err)
	zktest.Must(t, prod.Start(ctx))
	defer prod.Close()
	puts := []struct {
		item string
		prio int32
	}{{"p10a", 10}, {"n5", -5}, {"p0", 0}, {"p10b", 10}, {"n1", -1}, {"max", 1<<31 - 1}, {"min", -1 << 31}, {"p3", 3}}
	for _, p := range puts {
		_, err := prod.Put(ctx, p.item, p.prio)
		zktest.Must(t, err)
	}
	want := []string{"min", "n5", "n1", "p0", "p3", "p10a", "p10b", "max"}
	var r recorder
	cons, err := queue.NewDistributedPriorityQueue(c, "/prio", queue.JSON[string](), queue.WithConsumer(r.consume))
	zktest.Must(t, err)
	zktest.Must(t, cons.Start(ctx))
	awaitCount(t, len(want), 30*time.Second, &r)
	zktest.Must(t, cons.Close())
	if got := r.items(); !slices.Equal(got, want) {
		t.Errorf("consumed %q, want priority order %q", got, want)
	}
}

// A delay queue takes an item no earlier than its time by the queue's
// clock, due items in due-time order, and waits for the next item's time on
// a timer: a look at the items a millisecond short of an item's time takes
// nothing, and the item is taken once the clock reaches it.
func TestDelayedItemNotBeforeItsTime(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, queueWait)
	c := zkclient.New(t, srv.ConnectString())
	start := time.Now().Truncate(time.Millisecond) // due times are whole milliseconds
	clk := clock.NewFake(start)
	type taken struct {
		item string
		at   time.Time
	}
	got := make(chan taken, 10)
	q, err := queue.NewDistributedDelayQueue(c, "/delay", queue.JSON[string](), queue.WithClock(clk),
		queue.WithConsumer(func(_ context.Context, item string) error {
			got <- taken{item, clk.Now()}
			return nil
		}))
	zktest.Must(t, err)
	zktest.Must(t, q.Start(ctx))
	defer q.Close()
	later, soon, past := start.Add(1500*time.Millisecond), start.Add(700*time.Millisecond), start.Add(-time.Hour)
	for _, p := range []struct {
		item string
		at   time.Time
	}{{"later", later}, {"soon", soon}, {"past", past}} {
		_, err := q.Put(ctx, p.item, p.at)
		zktest.Must(t, err)
	}
	expect := func(item string, due time.Time) {
		t.Helper()
		select {
		case tk := <-got:
			if tk.item != item {
				t.Fatalf("took %q; want %q next", tk.item, item)
			}
			if tk.at.Before(due) {
				t.Fatalf("%s taken at %v, before its time %v", tk.item, tk.at, due)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%q not taken within 20s", item)
		}
	}
	expect("past", past)
	for _, next := range []struct {
		item string
		due  time.Time
	}{{"soon", soon}, {"later", later}} {
		awaitTimer(t, clk, next.due)
		clk.Advance(clk.Until(next.due) - time.Millisecond)
		// A new item makes the queue look again a millisecond early; it
		// takes nothing and waits on a new timer.
		armed := clk.Armed()
		_, err := q.Put(ctx, "wake-"+next.item, start.Add(time.Hour))
		zktest.Must(t, err)
		zktest.Eventually(t, 20*time.Second, "the queue looking again", func() bool {
			return clk.Armed() > armed || len(got) > 0
		})
		select {
		case tk := <-got:
			t.Fatalf("%s taken a millisecond before %s's time", tk.item, next.item)
		default:
		}
		clk.Advance(time.Millisecond)
		expect(next.item, next.due)
	}
}

// awaitTimer waits until the queue's only running timer is the one for at.
func awaitTimer(t *testing.T, clk *clock.Fake, at time.Time) {
	t.Helper()
	zktest.Eventually(t, 20*time.Second, fmt.Sprintf("the queue waiting on a timer for %v", at), func() bool {
		timers := clk.Timers()
		return len(timers) == 1 && timers[0].Equal(at)
	})
}

func TestIdQueueRemove(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, queueWait)
	c := zkclient.New(t, srv.ConnectString())
	for _, lockPath := range []string{"", "/idq-locks"} {
		path := "/idq" + lockPath
		var opts []queue.Option
		if lockPath != "" {
			opts = append(opts, queue.WithLockPath(lockPath))
		}
		q, err := queue.NewDistributedIDQueue(c, path, queue.JSON[string](), opts...)
		zktest.Must(t, err)
		zktest.Must(t, q.Start(ctx))
		for i, id := range []string{"a", "b", "a", "c/d"} {
			_, err := q.Put(ctx, fmt.Sprint("v", i), id)
			zktest.Must(t, err)
		}
		n, err := q.Remove(ctx, "a")
		zktest.Must(t, err)
		if n != 2 {
			t.Errorf("%s: Remove(a) = %d, want 2", path, n)
		}
		n, err = q.Remove(ctx, "c/d")
		zktest.Must(t, err)
		if n != 1 {
			t.Errorf("%s: Remove(c/d) = %d, want 1", path, n)
		}
		if left := children(t, c, path); len(left) != 1 {
			t.Errorf("%s: left %q, want the item of id b", path, left)
		}
		if lockPath != "" {
			awaitEmpty(t, c, lockPath, 10*time.Second)
		}
		zktest.Must(t, q.Close())
	}
	// The remaining item is consumed with its id's siblings gone.
	var r recorder
	q, err := queue.NewDistributedIDQueue(c, "/idq", queue.JSON[string](), queue.WithConsumer(r.consume))
	zktest.Must(t, err)
	zktest.Must(t, q.Start(ctx))
	awaitCount(t, 1, 20*time.Second, &r)
	zktest.Must(t, q.Close())
	if got := r.items(); !slices.Equal(got, []string{"v1"}) {
		t.Errorf("consumed %q, want [v1]", got)
	}
}
