package queue_test

import (
	"context"
	"errors"
	"testing"

	"github.com/zkcurator/zkcurator/recipes/queue"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// TestPutWithEndedCtxIsNotUnknown: a put (and an Offer) whose ctx ended
// before it was sent fails with ctx's error, sends nothing, and is not
// reported as an unknown outcome.
func TestPutWithEndedCtxIsNotUnknown(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, p.Addr())
	ctx := zktest.Context(t, queueWait)
	q, err := queue.NewDistributedQueue(c, "/ended", queue.Bytes())
	zktest.Must(t, err)
	zktest.Must(t, q.Start(ctx))
	defer q.Close()
	s, err := queue.NewSimpleDistributedQueue(c, "/ended-simple")
	zktest.Must(t, err)
	ended, cancel := context.WithCancel(ctx)
	cancel()
	before := p.RequestTotal()
	if _, err := q.Put(ended, []byte("x")); !errors.Is(err, context.Canceled) || errors.Is(err, queue.ErrOutcomeUnknown) {
		t.Errorf("Put with an ended ctx = %v, want context.Canceled and not ErrOutcomeUnknown", err)
	}
	if _, err := s.Offer(ended, []byte("x")); !errors.Is(err, context.Canceled) || errors.Is(err, queue.ErrOutcomeUnknown) {
		t.Errorf("Offer with an ended ctx = %v, want context.Canceled and not ErrOutcomeUnknown", err)
	}
	if n := p.RequestTotal() - before; n != 0 {
		t.Errorf("%d requests sent with an ended ctx", n)
	}
}
