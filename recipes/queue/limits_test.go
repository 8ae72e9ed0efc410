package queue_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/recipes/queue"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// TestRequestOverTheLimitRefusedBeforeSend: an item whose envelope is
// within MaxNodeData but whose request, with a long item name, would exceed
// ZooKeeper's jute.maxbuffer is refused before any request (the server
// would drop the connection), and so is a Remove of an id that no item
// name can hold.
func TestRequestOverTheLimitRefusedBeforeSend(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, p.Addr())
	ctx := zktest.Context(t, queueWait)
	iq, err := queue.NewDistributedIDQueue(c, "/big", queue.Bytes())
	zktest.Must(t, err)
	zktest.Must(t, iq.Start(ctx))
	defer iq.Close()
	s, err := queue.NewSimpleDistributedQueue(c, "/"+strings.Repeat("s", 2000))
	zktest.Must(t, err)
	losses := c.ConnectionLosses()
	before := p.RequestTotal()
	item := make([]byte, queue.MaxNodeData-10) // an envelope of MaxNodeData bytes
	if _, err := iq.Put(ctx, item, strings.Repeat("i", 2000)); !errors.Is(err, queue.ErrInvalidArgument) {
		t.Errorf("Put of a full item under a 2000-byte id = %v, want ErrInvalidArgument", err)
	}
	if _, err := s.Offer(ctx, make([]byte, queue.MaxNodeData)); !errors.Is(err, queue.ErrInvalidArgument) {
		t.Errorf("Offer of a full item under a 2000-byte path = %v, want ErrInvalidArgument", err)
	}
	if _, err := iq.Remove(ctx, "bad\x00id"); !errors.Is(err, queue.ErrInvalidArgument) || !strings.Contains(err.Error(), "id") {
		t.Errorf("Remove of an id ZooKeeper refuses = %v, want ErrInvalidArgument naming the id", err)
	}
	if n := p.RequestTotal() - before; n != 0 {
		t.Errorf("bad input sent %d requests", n)
	}
	if n := c.ConnectionLosses() - losses; n != 0 {
		t.Errorf("bad input cost %d connection losses", n)
	}
}

// TestEmptyLockPathRefused: an explicit empty lock path is an error, not a
// queue without lock safety.
func TestEmptyLockPathRefused(t *testing.T) {
	c := zkclient.Unreachable(t, retry.Forever{Interval: time.Second}) // the constructor makes no request
	_, err := queue.NewDistributedQueue(c, "/el", queue.Bytes(), queue.WithLockPath(""))
	if !errors.Is(err, queue.ErrInvalidArgument) || !strings.Contains(err.Error(), `lock path ""`) {
		t.Errorf("WithLockPath(\"\") = %v, want ErrInvalidArgument naming the lock path", err)
	}
}
