package campaign_test

import (
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/testing/campaign"
)

// defaultBarrierSecs is the barrier campaign's fault phase under plain go
// test.
const defaultBarrierSecs = 20

// TestCampaignBarrier has every client go through a DistributedDoubleBarrier
// of all of them, round after round, under faults: nobody passes Enter
// before every member called it, nobody returns from Leave before every
// member still counting called it, and no barrier node outlives a clean
// round or the clients.
func TestCampaignBarrier(t *testing.T) {
	runCampaign(t, campaign.Barrier, defaultBarrierSecs*time.Second)
}
