package queue_test

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/queue"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// TestDelayQueueRetriesAFailedItemBeforeTheNextDue: a due item whose take
// failed is tried again after the loop's retry pause, not only when a
// later item falls due.
func TestDelayQueueRetriesAFailedItemBeforeTheNextDue(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, queueWait)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, proxy.Addr())
	observer := zkclient.New(t, srv.ConnectString())
	// A lock path the consumer may read but not write: taking an item fails.
	_, err := observer.Create(ctx, "/dr-locks", nil, framework.WithACL(zk.WorldACL(zk.PermRead)...))
	zktest.Must(t, err)
	var r recorder
	q, err := queue.NewDistributedDelayQueue(c, "/dr", queue.JSON[string](), queue.WithLockPath("/dr-locks"), queue.WithConsumer(r.consume))
	zktest.Must(t, err)
	zktest.Must(t, q.Start(ctx))
	defer q.Close()
	_, err = q.Put(ctx, "later", time.Now().Add(time.Hour))
	zktest.Must(t, err)
	_, err = q.Put(ctx, "now", time.Now())
	zktest.Must(t, err)
	proxy.ResetCounts()
	zktest.Eventually(t, 10*time.Second, "a lock attempt to fail", func() bool {
		return proxy.RequestCount(zktest.OpCreate) > 0
	})
	// The lock path goes; the consumer makes it again on its next attempt.
	zktest.Must(t, observer.Delete(ctx, "/dr-locks"))
	awaitCount(t, 1, 15*time.Second, &r)
	if got := r.items(); len(got) != 1 || got[0] != "now" {
		t.Errorf("consumed %q, want [now]", got)
	}
}
