package campaign_test

import (
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/testing/campaign"
)

// defaultCacheSecs is the cache campaign's fault phase under plain go test.
const defaultCacheSecs = 20

// TestCampaignCache has every client create, update and delete nodes of one
// subtree, and keep an ephemeral node in it, while a CuratorCache of the
// subtree follows it (half the workers' on one recursive watch, half on
// one-shot watches), under faults; after each fault settles each cache,
// and the replay of the events it delivered, must equal the server's
// subtree, and no delivered event may contradict the ones before.
func TestCampaignCache(t *testing.T) {
	runCampaign(t, campaign.Cache, defaultCacheSecs*time.Second)
}
