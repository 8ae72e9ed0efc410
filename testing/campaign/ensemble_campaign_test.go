package campaign_test

import (
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/testing/campaign"
)

// pauseAndPartitionFaults are the faults of the ensemble itself
// (partitions between its members, paused member processes) and the paused
// client process.
var pauseAndPartitionFaults = []campaign.FaultKind{
	campaign.PartitionLeader, campaign.PartitionFollower, campaign.PartitionBridge,
	campaign.PauseLeader, campaign.PauseFollower, campaign.PauseClientProcess,
}

// TestCampaignPartitionsAndPauses runs the mutex campaign through one round
// of each: the leader cut off, a follower cut off, a bridge, a paused leader,
// a paused follower (each past the sync limit) and a contender process
// frozen past its session timeout while it holds the mutex. The round runs
// whole however long it takes (Config.Rounds), so a short CAMPAIGN_SECS or a
// loaded machine still meets each kind once. Every other campaign draws them
// too (the frozen process only the mutex, TTL, read/write, election and
// counter campaigns), among the client and kill faults.
func TestCampaignPartitionsAndPauses(t *testing.T) {
	rep := runCampaignConfig(t, campaign.Config{Kind: campaign.MutexLock, Duration: 60 * time.Second,
		Faults: pauseAndPartitionFaults, Rounds: 1})
	seen := make(map[campaign.FaultKind]int)
	for _, f := range rep.Faults {
		seen[f.Kind]++
	}
	for _, k := range pauseAndPartitionFaults {
		if seen[k] == 0 {
			t.Errorf("%s: no %s fault in the round: %v", rep.Summary(), k, seen)
		}
	}
}
