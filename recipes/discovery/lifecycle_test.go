package discovery_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/discovery"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// A ServiceDiscovery queries before Start; a Start on a closed client is
// framework.ErrClosed, however often it is tried; after Close, Start and
// queries are ErrClosed, and Close again returns nil.
func TestServiceDiscoveryStartAndClose(t *testing.T) {
	srv, c, _ := serve(t)
	ctx := zktest.TestContext(t)
	d, err := discovery.NewServiceDiscovery[meta](c, "/services")
	zktest.Must(t, err)
	if names, err := d.QueryForNames(ctx); err != nil || len(names) != 0 {
		t.Fatalf("QueryForNames before Start: %v %v", names, err)
	}
	zktest.Must(t, d.Close(ctx))
	zktest.Must(t, d.Close(ctx))
	if err := d.Start(); !errors.Is(err, discovery.ErrClosed) {
		t.Errorf("Start after Close: %v, want ErrClosed", err)
	}
	if _, err := d.QueryForNames(ctx); !errors.Is(err, discovery.ErrClosed) {
		t.Errorf("QueryForNames after Close: %v, want ErrClosed", err)
	}

	gone := zkclient.New(t, srv.ConnectString())
	d, err = discovery.NewServiceDiscovery[meta](gone, "/services")
	zktest.Must(t, err)
	zktest.Must(t, gone.Close())
	for try := range 2 {
		if err := d.Start(); !errors.Is(err, framework.ErrClosed) {
			t.Errorf("Start %d on a closed client: %v, want framework.ErrClosed", try, err)
		}
	}
	zktest.Must(t, d.Close(ctx))
}

// apiCache registers instance a of service api through a started
// ServiceDiscovery and returns it with a cache of api, not started.
func apiCache(t *testing.T) (*discovery.ServiceDiscovery[meta], *discovery.ServiceCache[meta]) {
	t.Helper()
	_, c, _ := serve(t)
	d := started(t, c)
	zktest.Must(t, d.RegisterService(zktest.TestContext(t), instance("api", "a", 1)))
	sc, err := d.NewServiceCache("api")
	zktest.Must(t, err)
	return d, sc
}

// A ServiceCache whose Start failed can be started again; a second Start is
// ErrAlreadyStarted; after Close, Start is ErrClosed, and Close again
// returns nil.
func TestServiceCacheStartAndClose(t *testing.T) {
	ctx := zktest.TestContext(t)
	_, sc := apiCache(t)
	done, cancel := context.WithCancel(ctx)
	cancel()
	if err := sc.Start(done); err == nil {
		t.Fatal("Start with an ended context succeeded")
	}
	zktest.Must(t, sc.Start(ctx))
	if got := sc.Instances(); len(got) != 1 || got[0].ID != "a" {
		t.Fatalf("cached %+v after the second Start", got)
	}
	if err := sc.Start(ctx); !errors.Is(err, discovery.ErrAlreadyStarted) {
		t.Errorf("second Start: %v, want ErrAlreadyStarted", err)
	}
	zktest.Must(t, sc.Close())
	zktest.Must(t, sc.Close())
	if err := sc.Start(ctx); !errors.Is(err, discovery.ErrClosed) {
		t.Errorf("Start after Close: %v, want ErrClosed", err)
	}
}

// A ServiceCache calls its listeners in the order they were added; a
// stopped one is not called again, and a zero listener's stop does nothing.
func TestServiceCacheListenersInOrderUntilStopped(t *testing.T) {
	ctx := zktest.TestContext(t)
	d, sc := apiCache(t)
	var mu sync.Mutex
	var calls []int
	heard := func() []int { mu.Lock(); defer mu.Unlock(); return slices.Clone(calls) }
	stops := make([]func(), 5)
	for i := range stops {
		stops[i] = sc.Listen(discovery.CacheListener{CacheChanged: func() { mu.Lock(); calls = append(calls, i); mu.Unlock() }})
	}
	zero := sc.Listen(discovery.CacheListener{})
	zero()
	zero()
	zktest.Must(t, sc.Start(ctx))
	defer sc.Close()

	zktest.Must(t, d.RegisterService(ctx, instance("api", "b", 2)))
	zktest.Eventually(t, 10*time.Second, "every listener told of b", func() bool { return len(heard()) >= 5 })
	if got := heard(); !slices.Equal(got, []int{0, 1, 2, 3, 4}) {
		t.Fatalf("listeners called %v, want in the order added", got)
	}
	stops[2]()
	stops[2]()
	zktest.Must(t, d.RegisterService(ctx, instance("api", "c", 3)))
	zktest.Eventually(t, 10*time.Second, "the others told of c", func() bool { return len(heard()) >= 9 })
	if got := heard()[5:]; !slices.Equal(got, []int{0, 1, 3, 4}) {
		t.Fatalf("after stopping listener 2, listeners called %v", got)
	}
}
