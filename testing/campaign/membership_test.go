package campaign_test

import (
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/testing/campaign"
)

// defaultMembershipSecs is the membership campaign's fault phase under
// plain go test.
const defaultMembershipSecs = 20

// TestCampaignMembership runs a GroupMember per client: after each fault
// settles every live member sees exactly the live members, and after one
// member's client dies the others see it gone.
func TestCampaignMembership(t *testing.T) {
	runCampaign(t, campaign.Membership, defaultMembershipSecs*time.Second)
}
