package campaign_test

import (
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/testing/campaign"
)

// TestCampaignDiscovery has every client keep an instance registered while
// registering and unregistering others, under faults; after each fault
// settles each client's ServiceCache must equal the server's children.
func TestCampaignDiscovery(t *testing.T) {
	runCampaign(t, campaign.Discovery, 20*time.Second)
}
