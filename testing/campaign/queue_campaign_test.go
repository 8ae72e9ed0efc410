package campaign_test

import (
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/testing/campaign"
)

// defaultQueueSecs is the queue campaign's fault phase under plain go test:
// short, as the TTL campaign's, since make test runs every campaign on two
// cores; make chaos runs it longer.
const defaultQueueSecs = 12

// TestCampaignQueue has three clients put items into a DistributedQueue and
// three consume them in lock path mode, under faults: every item a put
// returned is taken or left in the queue, none appears twice, an item of
// unknown outcome appears at most once, and no lock node outlives the
// clients.
func TestCampaignQueue(t *testing.T) {
	runCampaign(t, campaign.Queue, defaultQueueSecs*time.Second)
}
