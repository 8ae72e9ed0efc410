package framework_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
)

// Watch notifications reach ListenNodeEvents in the server's order, with
// namespace-relative paths, whichever call set the watch; a view's callback
// gets none from outside its namespace, and none after stop.
func TestListenNodeEventsDeliversEveryWatchNotification(t *testing.T) {
	c := newClient(t, sharedServer(t).ConnectString())
	ctx := testCtx(t)
	root := testRoot(t)
	app := c.UsingNamespace(root[1:] + "/app")
	if _, err := c.Create(ctx, root+"/other", nil, framework.CreatingParentsIfNeeded()); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var got []string
	stop := app.ListenNodeEvents(func(ev zk.Event) {
		mu.Lock()
		got = append(got, ev.Type.String()+" "+ev.Path)
		mu.Unlock()
	})
	if _, _, err := app.ExistsW(ctx, "/n"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.ExistsW(ctx, root+"/other"); err != nil {
		t.Fatal(err)
	}
	if _, err := app.Create(ctx, "/n", nil); err != nil { // NodeCreated /n
		t.Fatal(err)
	}
	if _, _, _, err := app.GetDataW(ctx, "/n"); err != nil {
		t.Fatal(err)
	}
	if _, err := app.SetData(ctx, "/n", []byte("x"), -1); err != nil { // NodeDataChanged /n
		t.Fatal(err)
	}
	if _, _, _, err := app.ChildrenW(ctx, "/"); err != nil {
		t.Fatal(err)
	}
	if err := app.Delete(ctx, "/n"); err != nil { // NodeChildrenChanged /
		t.Fatal(err)
	}
	if err := c.Delete(ctx, root+"/other"); err != nil { // outside the namespace
		t.Fatal(err)
	}
	want := []string{"EventNodeCreated /n", "EventNodeDataChanged /n", "EventNodeChildrenChanged /"}
	eventually(t, "the watch notifications", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) >= len(want)
	})
	stop()
	seen := make(chan struct{})
	var once sync.Once
	stop2 := app.ListenNodeEvents(func(ev zk.Event) {
		if ev.Path == "/after" {
			once.Do(func() { close(seen) })
		}
	})
	defer stop2()
	if _, _, err := app.ExistsW(ctx, "/after"); err != nil {
		t.Fatal(err)
	}
	if _, err := app.Create(ctx, "/after", nil); err != nil {
		t.Fatal(err)
	}
	// Listeners are called in registration order: once the second has seen
	// /after, the stopped one would have too.
	select {
	case <-seen:
	case <-time.After(testWait):
		t.Fatal("the creation of /after was never notified")
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(got, want) {
		t.Fatalf("notifications %q, want %q", got, want)
	}
}
