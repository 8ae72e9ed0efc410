package shared_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/recipes/shared"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Clients increment one SharedCount with TrySet (read, write at the version
// read, again on false) while their proxies lose replies to writes: the
// final count is the successful increments plus some of the unknown ones.
func TestSharedCountIncrementsExactUnderLostReplies(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	const clients, each = 3, 30
	var mu sync.Mutex
	ok, unknown := 0, 0
	var wg sync.WaitGroup
	proxies := make([]*zktest.Proxy, clients)
	for i := range proxies {
		proxies[i] = zktest.StartProxy(t, srv.ConnectString())
		proxies[i].LoseNextReply(zktest.OpSetData)
		s, err := shared.NewSharedCount(zkclient.New(t, proxies[i].Addr()), "/shared/inc", 0)
		zktest.Must(t, err)
		zktest.Must(t, s.Start(ctx))
		defer s.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for done := 0; done < each; {
				for try := 0; ; try++ {
					if try == 1000 {
						t.Error("an increment conflicted 1000 times")
						return
					}
					v := s.VersionedValue()
					applied, err := s.TrySet(ctx, v.Value+1, v.Version)
					if errors.Is(err, shared.ErrOutcomeUnknown) {
						mu.Lock()
						unknown++
						mu.Unlock()
						break
					}
					if err != nil {
						t.Error(err)
						return
					}
					if applied {
						mu.Lock()
						ok++
						mu.Unlock()
						break
					}
				}
				done++
			}
		}()
	}
	stop := make(chan struct{})
	faults := make(chan struct{})
	go func() {
		defer close(faults)
		// One more lost reply per proxy, once the first has been lost: a
		// reconnect takes about a second, and arming faster than that would
		// lose every retry.
		for i := 0; i < clients; i++ {
			select {
			case <-stop:
				return
			case <-time.After(time.Second):
				proxies[i].LoseNextReply(zktest.OpSetData)
			}
		}
	}()
	wg.Wait()
	close(stop)
	<-faults

	s, err := shared.NewSharedCount(zkclient.New(t, srv.ConnectString()), "/shared/inc", 0)
	zktest.Must(t, err)
	zktest.Must(t, s.Start(ctx))
	defer s.Close()
	got := int(s.Count())
	t.Logf("%d ok, %d unknown, final %d", ok, unknown, got)
	if got < ok || got > ok+unknown {
		t.Fatalf("count = %d, want between %d and %d: an increment was lost or applied twice", got, ok, ok+unknown)
	}
	if unknown == 0 {
		t.Error("no reply was lost: the faults did not bite")
	}
}
