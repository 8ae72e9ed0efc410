package interop

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/recipes/queue"
)

// TestQueueCuratorToGo: Curator 5.4 puts (put, putMulti, ids, priorities,
// due times, SimpleDistributedQueue offers); zkcurator consumes them in
// Curator's order, with the lock path, and leaves no item or lock node.
func TestQueueCuratorToGo(t *testing.T) {
	srv := startZooKeeper(t)
	gc := newGoClient(t, srv.ConnectString())
	java := StartHelper(t, srv.ConnectString())
	ctx := testContext(t, 120*time.Second)
	put := func(kind, path, items, arg string) {
		t.Helper()
		if _, err := java.Do(ctx, "PUT", "queue.put", kind, path, items, arg); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("fifo", func(t *testing.T) {
		put("fifo", "/iq/fifo", "a", "-")
		put("fifo", "/iq/fifo", "b,c,d", "-")
		put("fifo", "/iq/fifo", "e", "-")
		var g goTaken
		q, err := queue.NewDistributedQueue(gc, "/iq/fifo", queue.Serializer[string](utf8Items{}),
			queue.WithLockPath("/iq/fifo-locks"), queue.WithConsumer(g.consume))
		if err != nil {
			t.Fatal(err)
		}
		startGoQueue(t, q)
		if got, _ := g.await(t, 5); !slices.Equal(got, []string{"a", "b", "c", "d", "e"}) {
			t.Errorf("Go took %q, want a..e in order", got)
		}
		awaitNoChildren(t, gc, "/iq/fifo")
		awaitNoChildren(t, gc, "/iq/fifo-locks")
	})

	t.Run("id", func(t *testing.T) {
		put("id", "/iq/id", "x1", "j1")
		put("id", "/iq/id", "x2", "j2")
		put("id", "/iq/id", "x3", "j1")
		q, err := queue.NewDistributedIDQueue(gc, "/iq/id", queue.Serializer[string](utf8Items{}))
		if err != nil {
			t.Fatal(err)
		}
		startGoQueue(t, q)
		if n, err := q.Remove(ctx, "j1"); err != nil || n != 2 {
			t.Fatalf("Go Remove(j1) of Curator's items = %d, %v; want 2", n, err)
		}
		var g goTaken
		cq, err := queue.NewDistributedIDQueue(gc, "/iq/id", queue.Serializer[string](utf8Items{}), queue.WithConsumer(g.consume))
		if err != nil {
			t.Fatal(err)
		}
		startGoQueue(t, cq)
		if got, _ := g.await(t, 1); !slices.Equal(got, []string{"x2"}) {
			t.Errorf("Go took %q, want [x2]", got)
		}
	})

	t.Run("priority", func(t *testing.T) {
		put("priority", "/iq/prio", "p5", "5")
		put("priority", "/iq/prio", "n3", "-3")
		put("priority", "/iq/prio", "m1,m2", "0")
		var g goTaken
		q, err := queue.NewDistributedPriorityQueue(gc, "/iq/prio", queue.Serializer[string](utf8Items{}),
			queue.WithLockPath("/iq/prio-locks"), queue.WithConsumer(g.consume))
		if err != nil {
			t.Fatal(err)
		}
		startGoQueue(t, q)
		if got, _ := g.await(t, 4); !slices.Equal(got, []string{"n3", "m1", "m2", "p5"}) {
			t.Errorf("Go took %q, want [n3 m1 m2 p5]", got)
		}
	})

	t.Run("delay", func(t *testing.T) {
		due := time.Now().Add(1500 * time.Millisecond)
		put("delay", "/iq/delay", "later", strconv.FormatInt(due.UnixMilli(), 10))
		put("delay", "/iq/delay", "now", strconv.FormatInt(time.Now().Add(-time.Second).UnixMilli(), 10))
		var g goTaken
		q, err := queue.NewDistributedDelayQueue(gc, "/iq/delay", queue.Serializer[string](utf8Items{}), queue.WithConsumer(g.consume))
		if err != nil {
			t.Fatal(err)
		}
		startGoQueue(t, q)
		got, at := g.await(t, 2)
		if !slices.Equal(got, []string{"now", "later"}) {
			t.Errorf("Go took %q, want [now later]", got)
		}
		if len(at) == 2 && at[1].Before(due.Truncate(time.Millisecond)) {
			t.Errorf("Go took Curator's delayed item at %v, before its time %v", at[1], due)
		}
	})

	t.Run("simple", func(t *testing.T) {
		for _, s := range []string{"s1", "s2"} {
			if _, err := java.Do(ctx, "OFFERED", "queue.offer", "/iq/simple", s); err != nil {
				t.Fatal(err)
			}
		}
		q, err := queue.NewSimpleDistributedQueue(gc, "/iq/simple")
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"s1", "s2"} {
			if d, err := q.Take(ctx); err != nil || string(d) != want {
				t.Errorf("Go Take = %q, %v; want %q", d, err, want)
			}
		}
	})
}

// TestQueueGoToCurator: zkcurator puts (Put, PutMulti, ids and Remove,
// priorities, due times, Offer); Curator 5.4 consumes them in order.
func TestQueueGoToCurator(t *testing.T) {
	srv := startZooKeeper(t)
	gc := newGoClient(t, srv.ConnectString())
	java := StartHelper(t, srv.ConnectString())
	ctx := testContext(t, 120*time.Second)
	ser := queue.Serializer[string](utf8Items{})
	must := func(_ string, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	consume := func(kind, path, lockPath string, n int) ([]string, []time.Time) {
		t.Helper()
		c, err := java.Send("queue.consume", kind, path, lockPath, strconv.Itoa(n), "60000")
		if err != nil {
			t.Fatal(err)
		}
		return javaItems(t, ctx, c, n)
	}

	t.Run("fifo", func(t *testing.T) {
		q, err := queue.NewDistributedQueue(gc, "/gq/fifo", ser)
		if err != nil {
			t.Fatal(err)
		}
		startGoQueue(t, q)
		must(q.Put(ctx, "a"))
		must(q.PutMulti(ctx, []string{"b", "c", "d"}))
		must(q.Put(ctx, "e"))
		if got, _ := consume("fifo", "/gq/fifo", "/gq/fifo-locks", 5); !slices.Equal(got, []string{"a", "b", "c", "d", "e"}) {
			t.Errorf("Curator took %q, want a..e in order", got)
		}
		awaitNoChildren(t, gc, "/gq/fifo")
		awaitNoChildren(t, gc, "/gq/fifo-locks")
	})

	t.Run("id", func(t *testing.T) {
		q, err := queue.NewDistributedIDQueue(gc, "/gq/id", ser)
		if err != nil {
			t.Fatal(err)
		}
		startGoQueue(t, q)
		must(q.Put(ctx, "x1", "j1"))
		must(q.Put(ctx, "x2", "j2"))
		must(q.Put(ctx, "x3", "j1"))
		e, err := java.Do(ctx, "REMOVED", "queue.remove", "/gq/id", "j1")
		if err != nil || e.Field(0) != "2" {
			t.Fatalf("Curator remove(j1) of Go's items = %v, %v; want 2", e, err)
		}
		if got, _ := consume("id", "/gq/id", "-", 1); !slices.Equal(got, []string{"x2"}) {
			t.Errorf("Curator took %q, want [x2]", got)
		}
	})

	t.Run("priority", func(t *testing.T) {
		q, err := queue.NewDistributedPriorityQueue(gc, "/gq/prio", ser)
		if err != nil {
			t.Fatal(err)
		}
		startGoQueue(t, q)
		must(q.Put(ctx, "p5", 5))
		must(q.Put(ctx, "n3", -3))
		must(q.PutMulti(ctx, []string{"m1", "m2"}, 0))
		if got, _ := consume("priority", "/gq/prio", "/gq/prio-locks", 4); !slices.Equal(got, []string{"n3", "m1", "m2", "p5"}) {
			t.Errorf("Curator took %q, want [n3 m1 m2 p5]", got)
		}
	})

	t.Run("delay", func(t *testing.T) {
		q, err := queue.NewDistributedDelayQueue(gc, "/gq/delay", ser)
		if err != nil {
			t.Fatal(err)
		}
		startGoQueue(t, q)
		due := time.Now().Add(1500 * time.Millisecond)
		must(q.Put(ctx, "later", due))
		must(q.Put(ctx, "now", time.Now().Add(-time.Second)))
		got, at := consume("delay", "/gq/delay", "-", 2)
		if !slices.Equal(got, []string{"now", "later"}) {
			t.Errorf("Curator took %q, want [now later]", got)
		}
		if len(at) == 2 && at[1].Before(due.Truncate(time.Millisecond)) {
			t.Errorf("Curator took Go's delayed item at %v, before its time %v", at[1], due)
		}
	})

	t.Run("simple", func(t *testing.T) {
		q, err := queue.NewSimpleDistributedQueue(gc, "/gq/simple")
		if err != nil {
			t.Fatal(err)
		}
		must(q.Offer(ctx, []byte("s1")))
		must(q.Offer(ctx, []byte("s2")))
		for _, want := range []string{"s1", "s2"} {
			e, err := java.Do(ctx, "POLLED", "queue.poll", "/gq/simple", "5000")
			if err != nil || e.Field(0) != want {
				t.Errorf("Curator poll = %v, %v; want %q", e, err, want)
			}
		}
	})
}

// TestQueueMixedLockPathConsumers: Go and Curator consumers on one queue
// and one lock path take every item exactly once between them.
func TestQueueMixedLockPathConsumers(t *testing.T) {
	const n = 40
	srv := startZooKeeper(t)
	gc := newGoClient(t, srv.ConnectString())
	java := StartHelper(t, srv.ConnectString())
	ctx := testContext(t, 120*time.Second)
	c, err := java.Send("queue.consume", "fifo", "/mq", "/mq-locks", strconv.Itoa(n), "60000")
	if err != nil {
		t.Fatal(err)
	}
	var g goTaken
	q, err := queue.NewDistributedQueue(gc, "/mq", queue.Serializer[string](utf8Items{}),
		queue.WithLockPath("/mq-locks"), queue.WithConsumer(g.consume))
	if err != nil {
		t.Fatal(err)
	}
	startGoQueue(t, q)
	for i := range n {
		item := "item-" + strconv.Itoa(i)
		if i%2 == 0 {
			if _, err := q.Put(ctx, item); err != nil {
				t.Fatal(err)
			}
		} else if _, err := java.Do(ctx, "PUT", "queue.put", "fifo", "/mq", item, "-"); err != nil {
			t.Fatal(err)
		}
	}
	awaitNoChildren(t, gc, "/mq")
	awaitNoChildren(t, gc, "/mq-locks")
	goItems, _ := g.snapshot()
	count := map[string]int{}
	for _, it := range goItems {
		count[it]++
	}
	for _, ev := range c.Events("ITEM") {
		count[ev.Field(0)]++
	}
	for i := range n {
		if k := count["item-"+strconv.Itoa(i)]; k != 1 {
			t.Errorf("item-%d taken %d times, want 1", i, k)
		}
	}
	if len(count) != n {
		t.Errorf("%d distinct items taken, want %d", len(count), n)
	}
	t.Logf("Go took %d items, Curator %d", len(goItems), len(c.Events("ITEM")))
}

// TestQueueKilledCuratorConsumerItemGoesToGo: a Curator consumer killed in
// the middle of an item, in lock path mode, leaves the item; once its
// session expires a Go consumer on the same lock path takes it, once, and
// no lock node is left.
func TestQueueKilledCuratorConsumerItemGoesToGo(t *testing.T) {
	srv := startZooKeeper(t)
	gc := newGoClient(t, srv.ConnectString())
	java := StartHelper(t, srv.ConnectString())
	ctx := testContext(t, 120*time.Second)
	if _, err := java.Do(ctx, "PUT", "queue.put", "fifo", "/kq", "first,also", "-"); err != nil {
		t.Fatal(err)
	}
	hold, err := java.Send("queue.hold", "/kq", "/kq-locks")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hold.Await(ctx, "HOLDING"); err != nil {
		t.Fatal(err)
	}
	var g goTaken
	q, err := queue.NewDistributedQueue(gc, "/kq", queue.Serializer[string](utf8Items{}),
		queue.WithLockPath("/kq-locks"), queue.WithConsumer(g.consume))
	if err != nil {
		t.Fatal(err)
	}
	startGoQueue(t, q)
	killed := time.Now()
	if err := java.Kill(); err != nil {
		t.Fatal(err)
	}
	got, at := g.await(t, 2)
	if !slices.Equal(got, []string{"first", "also"}) {
		t.Errorf("Go took %q, want [first also] (the putMulti's two items, once)", got)
	}
	awaitNoChildren(t, gc, "/kq")
	awaitNoChildren(t, gc, "/kq-locks")
	t.Logf("Go took the killed consumer's item %v after the kill (Curator's session timeout %v)", at[0].Sub(killed).Round(time.Millisecond), java.SessionTimeout())
}
