package nodes_test

import (
	"context"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/recipes/nodes"
)

// A GroupMember's Start that fails because its ctx ends while the server
// does not answer returns within its ctx (plus a margin for a loaded
// machine), not after the clean-up it then needs; the member's node, which
// a create still on its way may make, goes once the server answers again.
func TestGroupMemberStartIsBoundedByItsContext(t *testing.T) {
	admin, proxy, c := proxied(t)
	ctx := testCtx(t)
	gm, err := nodes.NewGroupMember(c, "/start-bound/g", "m", nil)
	must(t, err)

	proxy.Pause()
	const wait = 300 * time.Millisecond
	short, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	began := time.Now()
	err = gm.Start(short)
	took := time.Since(began)
	proxy.Resume()
	if err == nil {
		t.Fatal("Start succeeded while the server could not answer")
	}
	if limit := wait + 2*time.Second; took > limit {
		t.Errorf("Start with a %v context returned after %v, want within %v", wait, took, limit)
	}
	awaitGone(t, admin, "/start-bound/g/m")
}
