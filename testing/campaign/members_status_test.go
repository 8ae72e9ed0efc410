package campaign

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

// A connection error of the harness says what each member answers: its
// mode while it serves, and no answer once it is gone.
func TestMembersStatusNamesEachMembersMode(t *testing.T) {
	cluster := zktest.StartCluster(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	status := membersStatus(ctx, cluster)
	if strings.Count(status, "Mode: leader") != 1 || strings.Count(status, "Mode: follower") != 2 {
		t.Fatalf("status of a serving ensemble = %q, want one leader and two followers", status)
	}
	if err := cluster.Kill(2); err != nil {
		t.Fatal(err)
	}
	status = membersStatus(ctx, cluster)
	if !strings.Contains(status, "member 2 no answer") {
		t.Errorf("status with member 2 killed = %q, want it to say member 2 does not answer", status)
	}
}
