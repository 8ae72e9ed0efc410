package framework_test

import (
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// Requests that go-zookeeper queued while a connection dropped go out first
// on the next one, and their replies arrive while go-zookeeper reads the zxid
// it sets the session's watches again from. The client holds those replies
// back until the SetWatches request is written (rewatch.go); without that,
// the race detector reports go-zookeeper's read and write of that zxid here
// (this test guards the fix only under -race, which make test uses).
func TestRequestsQueuedAcrossReconnectsDoNotRaceTheWatchReset(t *testing.T) {
	const cycles = 100
	p := zktest.StartProxy(t, sharedServer(t).ConnectString())
	// The address twice: go-zookeeper empties its queue and waits a second
	// before dialing a list it has gone through; with two entries it
	// reconnects at once and sends what it queued meanwhile.
	c, _ := startRecorded(t, p.Addr()+","+p.Addr(), framework.WithSessionTimeout(10*time.Second))
	conn := c.Conn()

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1_000_000; i++ {
				select {
				case <-stop:
					return
				default:
				}
				conn.Exists("/") // errors are expected while the connection is down
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()

	deadline := time.Now().Add(60 * time.Second)
	for i := 0; i < cycles; i++ {
		rewatched := p.RequestCount(zktest.OpSetWatches)
		p.Sever()
		for conn.State() != zk.StateHasSession || p.RequestCount(zktest.OpSetWatches) == rewatched {
			if time.Now().After(deadline) {
				t.Fatalf("cycle %d: no reconnect with SetWatches before the deadline", i)
			}
			time.Sleep(time.Millisecond)
		}
	}
}
