package leader_test

import (
	"context"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/leader"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Errors returned under faults carry "leader: " once, however many layers
// wrapped them: lost replies to the reads of Participants (the client does
// not retry), a closed client, a closed latch, bad arguments. The waits
// tests check the errors of partitions and of an unreachable server.
func TestErrorsCarryThePrefixOnce(t *testing.T) {
	srv := shared.Server(t)
	proxy := newProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	const dir = "/prefix/latch"
	obs := zkclient.New(t, srv.ConnectString())
	await(t, startLatch(t, obs, dir, "holder"), 10*time.Second)
	c := zkclient.NewWithPolicy(t, proxy.Addr(), retry.NTimes{N: 0}, framework.WithSessionTimeout(10*time.Second))
	l := startLatch(t, c, dir, "x")
	waitChildren(t, obs, dir, 2)

	var errs []error
	for _, op := range []zktest.Op{zktest.OpGetChildren2, zktest.OpGetData} {
		// The latch's own reads after a reconnect may take the arming first
		// (its reply is lost, not Participants'): arm again, a bounded number
		// of times, until a Participants call meets the lost reply.
		var err error
		for try := 0; err == nil && try < 5; try++ {
			if err := c.BlockUntilConnected(ctx); err != nil {
				t.Fatal(err)
			}
			proxy.LoseNextReply(op)
			_, err = l.Participants(ctx)
		}
		if err == nil {
			t.Fatalf("Participants with a lost reply to %v: no error in 5 tries", op)
		}
		errs = append(errs, err)
		if err := c.BlockUntilConnected(ctx); err != nil {
			t.Fatal(err)
		}
	}
	_, errSelector := leader.NewLeaderSelector(c, "/prefix/selector", "x", nil)
	_, errLatch := leader.NewLeaderLatch(c, "/", "x")
	errs = append(errs, errSelector, errLatch)
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, err := l.Await(short) // queued behind the holder
	errs = append(errs, err)
	_, err = leader.NewLeaderLatch(c, dir, "")
	errs = append(errs, err)
	_, err = newLatch(t, c, dir, "unstarted").Await(ctx)
	errs = append(errs, err)
	zktest.Must(t, l.Close(ctx))
	_, err = l.Await(ctx)
	errs = append(errs, err, l.Start())
	zktest.Must(t, c.Close())
	_, err = l.Participants(ctx)
	errs = append(errs, err, newLatch(t, c, dir, "y").Start())
	for i, err := range errs {
		if err == nil {
			t.Errorf("case %d: no error", i)
			continue
		}
		zktest.PrefixOnce(t, "leader: ", err.Error(), err)
	}
}
