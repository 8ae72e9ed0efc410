package nodes_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// A SetData whose ctx ends while another SetData's write is slow returns
// within its ctx, not when that write ends; the write under way then writes
// its data too, so the node ends with the last SetData's.
func TestPersistentNodeSetDataIsBoundedByItsContext(t *testing.T) {
	admin, proxy, c := proxied(t)
	ctx := zktest.TestContext(t)
	n := keptNode(t, c, "/data-bound/n", framework.Persistent, []byte("v1"))

	const slow = 1500 * time.Millisecond // each way
	proxy.ResetCounts()
	proxy.SetLatency(slow)
	first := make(chan error, 1)
	go func() { first <- n.SetData(ctx, []byte("v2")) }()
	zktest.Eventually(t, 10*time.Second, "the first write is on its way", func() bool {
		return proxy.RequestCount(zktest.OpSetData) > 0
	})

	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	began := time.Now()
	err := n.SetData(short, []byte("v3"))
	if took := time.Since(began); took > slow {
		t.Errorf("SetData with a 200 ms context returned after %v, behind the write under way", took)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("SetData with a 200 ms context = %v, want an error matching context.DeadlineExceeded", err)
	}
	proxy.SetLatency(0)
	zktest.Must(t, <-first)
	data, _, err := admin.GetData(ctx, "/data-bound/n")
	zktest.Must(t, err)
	if string(data) != "v3" {
		t.Errorf("the node holds %q, want the last SetData's %q", data, "v3")
	}
}
