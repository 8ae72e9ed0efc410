package campaign_test

import (
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/testing/campaign"
)

// ensembleFaults are the faults of the ensemble itself: partitions between
// its members and paused member processes.
var ensembleFaults = []campaign.FaultKind{
	campaign.PartitionLeader, campaign.PartitionFollower, campaign.PartitionBridge,
	campaign.PauseLeader, campaign.PauseFollower,
}

// TestCampaignEnsembleFaults runs the mutex campaign through one round of
// every ensemble fault (the leader cut off, a follower cut off, a bridge, a
// paused leader, a paused follower, each past the sync limit), so that a
// short run meets each kind once; every other campaign draws them too,
// among the client and kill faults.
func TestCampaignEnsembleFaults(t *testing.T) {
	rep := runCampaignConfig(t, campaign.Config{Kind: campaign.MutexLock, Duration: 60 * time.Second,
		Faults: ensembleFaults, Rounds: 1})
	seen := make(map[campaign.FaultKind]int)
	for _, f := range rep.Faults {
		seen[f.Kind]++
	}
	for _, k := range ensembleFaults {
		if seen[k] == 0 {
			t.Errorf("%s: no %s fault in the round: %v", rep.Summary(), k, seen)
		}
	}
}
