package queue_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/queue"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

func TestBadInputBeforeAnyRequest(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, p.Addr())
	ctx := zktest.Context(t, queueWait)
	bad := func(what string, err error, mention string) {
		t.Helper()
		if !errors.Is(err, queue.ErrInvalidArgument) || !strings.Contains(err.Error(), mention) {
			t.Errorf("%s: %v, want ErrInvalidArgument naming %q", what, err, mention)
		}
	}
	var nilSer queue.Serializer[string]
	_, err := queue.NewDistributedQueue(c, "/q", nilSer)
	bad("nil serializer", err, "nil serializer")
	_, err = queue.NewDistributedQueue(nil, "/q", queue.Bytes())
	bad("nil client", err, "nil client")
	_, err = queue.NewDistributedQueue(c, "/", queue.Bytes())
	bad("root", err, `"/"`)
	_, err = queue.NewDistributedQueue(c, "q", queue.Bytes())
	if !errors.Is(err, queue.ErrInvalidArgument) || !errors.Is(err, framework.ErrInvalidPath) {
		t.Errorf("relative path: %v", err)
	}
	for _, n := range []int{0, -3} {
		_, err = queue.NewDistributedQueue(c, "/q", queue.Bytes(), queue.WithMaxItems(n))
		bad("maxItems", err, fmt.Sprintf("maxItems %d", n))
	}
	_, err = queue.NewDistributedQueue(c, "/q", queue.Bytes(), queue.WithErrorMode(queue.Delete))
	bad("error mode without lock path", err, "needs WithLockPath")
	_, err = queue.NewDistributedQueue(c, "/q", queue.Bytes(), queue.WithLockPath("/q"))
	bad("lock path = queue path", err, `"/q"`)
	_, err = queue.NewDistributedQueue(c, "/q", queue.Bytes(), queue.WithConsumer(func(context.Context, string) error { return nil }))
	bad("consumer of another type", err, "consumer")
	_, err = queue.NewDistributedQueue(c, "/q", queue.Bytes(), queue.WithMaxItems(3), nil)
	bad("nil option", err, "option 1")
	_, err = queue.NewSimpleDistributedQueue(nil, "/s")
	bad("simple nil client", err, "nil client")

	before := p.RequestTotal()
	q, err := queue.NewDistributedQueue(c, "/q", queue.Bytes())
	zktest.Must(t, err)
	if _, err := q.Put(ctx, []byte("x")); !errors.Is(err, queue.ErrNotStarted) {
		t.Errorf("Put before Start: %v", err)
	}
	zktest.Must(t, q.Start(ctx))
	defer q.Close()
	if err := q.Start(ctx); !errors.Is(err, queue.ErrAlreadyStarted) {
		t.Errorf("second Start: %v", err)
	}
	before = p.RequestTotal()
	big := make([]byte, 1<<20)
	_, err = q.Put(ctx, big)
	bad("item over 1 MB", err, "node limit")
	_, err = q.PutMulti(ctx, [][]byte{big[:600<<10], big[:600<<10]})
	bad("items over 1 MB together", err, "node limit")
	_, err = q.PutMulti(ctx, nil)
	bad("no items", err, "no items")
	dq, err := queue.NewDistributedDelayQueue(c, "/dq", queue.Bytes())
	zktest.Must(t, err)
	zktest.Must(t, dq.Start(ctx))
	defer dq.Close()
	before = p.RequestTotal()
	_, err = dq.Put(ctx, []byte("x"), time.Time{})
	bad("zero delay time", err, "delay until")
	_, err = dq.Put(ctx, []byte("x"), time.UnixMilli(-5))
	bad("delay before the epoch", err, "delay until")
	iq, err := queue.NewDistributedIDQueue(c, "/iq", queue.Bytes())
	zktest.Must(t, err)
	zktest.Must(t, iq.Start(ctx))
	defer iq.Close()
	before = p.RequestTotal()
	_, err = iq.Put(ctx, []byte("x"), "")
	bad("empty id", err, "empty id")
	_, err = iq.Put(ctx, []byte("x"), "bad\x00id")
	bad("id ZooKeeper refuses", err, "item name")
	s, err := queue.NewSimpleDistributedQueue(c, "/s")
	zktest.Must(t, err)
	_, err = s.Offer(ctx, big)
	bad("simple item over 1 MB", err, "node limit")
	_, _, err = s.Poll(ctx, -time.Second)
	bad("negative wait", err, "negative wait")
	if after := p.RequestTotal(); after != before {
		t.Errorf("bad input sent %d requests", after-before)
	}
	zktest.Must(t, q.Close())
	if _, err := q.Put(ctx, []byte("x")); !errors.Is(err, queue.ErrClosed) {
		t.Errorf("Put after Close: %v", err)
	}
	zktest.Must(t, q.Close()) // idempotent
}

func TestSimpleDistributedQueue(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, queueWait)
	c := zkclient.New(t, srv.ConnectString())
	q, err := queue.NewSimpleDistributedQueue(c, "/simple/q")
	zktest.Must(t, err)
	if _, ok, err := q.Peek(ctx); err != nil || ok {
		t.Fatalf("Peek on a missing queue = %v, %v", ok, err)
	}
	if _, err := q.Element(ctx); !errors.Is(err, queue.ErrEmpty) {
		t.Errorf("Element on empty: %v", err)
	}
	if _, err := q.Remove(ctx); !errors.Is(err, queue.ErrEmpty) {
		t.Errorf("Remove on empty: %v", err)
	}
	start := time.Now()
	if _, ok, err := q.Poll(ctx, 300*time.Millisecond); err != nil || ok {
		t.Errorf("Poll on empty = %v, %v", ok, err)
	}
	if d := time.Since(start); d < 300*time.Millisecond || d > 5*time.Second {
		t.Errorf("Poll(300ms) took %v", d)
	}
	for _, s := range []string{"a", "b", "c"} {
		_, err := q.Offer(ctx, []byte(s))
		zktest.Must(t, err)
	}
	if d, ok, err := q.Peek(ctx); err != nil || !ok || string(d) != "a" {
		t.Errorf("Peek = %q, %v, %v", d, ok, err)
	}
	if d, err := q.Take(ctx); err != nil || string(d) != "a" {
		t.Errorf("Take = %q, %v", d, err)
	}
	if d, err := q.Remove(ctx); err != nil || string(d) != "b" {
		t.Errorf("Remove = %q, %v", d, err)
	}
	if d, ok, err := q.Poll(ctx, 0); err != nil || !ok || string(d) != "c" {
		t.Errorf("Poll = %q, %v, %v", d, ok, err)
	}
	got := make(chan []byte, 1)
	go func() {
		d, err := q.Take(ctx)
		if err != nil {
			t.Errorf("Take: %v", err)
		}
		got <- d
	}()
	_, err = q.Offer(ctx, []byte("late"))
	zktest.Must(t, err)
	select {
	case d := <-got:
		if string(d) != "late" {
			t.Errorf("Take = %q", d)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Take did not see the offered item")
	}
}
