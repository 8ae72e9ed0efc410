package barriers_test

import (
	"context"
	"errors"
	"testing"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/barriers"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Every barrier call on a closed client fails with framework.ErrClosed,
// also the Leave of a member that entered before the client closed.
func TestBarrierCallsOnAClosedClient(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	member, err := barriers.NewDistributedDoubleBarrier(c, "/closed/double", 1)
	zktest.Must(t, err)
	zktest.Must(t, member.Enter(ctx))
	zktest.Must(t, c.Close())

	gate, err := barriers.NewDistributedBarrier(c, "/closed/gate")
	zktest.Must(t, err)
	late, err := barriers.NewDistributedDoubleBarrier(c, "/closed/double", 1)
	zktest.Must(t, err)
	for name, call := range map[string]func(context.Context) error{
		"Set": gate.Set, "Remove": gate.Remove, "Wait": gate.Wait,
		"Enter": late.Enter, "Leave": member.Leave,
	} {
		if err := call(ctx); !errors.Is(err, framework.ErrClosed) {
			t.Errorf("%s on a closed client = %v, want framework.ErrClosed", name, err)
		}
	}
}
