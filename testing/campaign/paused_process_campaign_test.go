package campaign_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/testing/campaign"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// TestCampaignPausedClientProcesses runs, on one ensemble, one
// pause-client-process fault in each campaign beyond the mutex's that runs
// it: a TTL-mutex holder, a write-lock holder, a LeaderLatch leader and a
// LeaderSelector leader frozen past their session timeout and woken to
// write with their old token, and an incrementer of the
// DistributedAtomicLong frozen with an increment in flight. Each campaign's
// checker judges the frozen process's history with the workers'; the test
// also asserts that the freeze struck what it was meant to.
func TestCampaignPausedClientProcesses(t *testing.T) {
	seed, _ := settings(t, 0)
	cluster := zktest.StartCluster(t, 3, zktest.WithExtendedTypes(), zktest.WithContainerCheckInterval(200*time.Millisecond))
	for _, kind := range []campaign.LockKind{campaign.TTLMutexLock, campaign.ReadWriteLock, campaign.ElectionLatch, campaign.ElectionSelector, campaign.Counter} {
		t.Run(kind.String(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			rep, err := campaign.Run(ctx, cluster, campaign.Config{Kind: kind, Seed: seed, Duration: 20 * time.Second,
				Faults: []campaign.FaultKind{campaign.PauseClientProcess}, Rounds: 1, SessionTimeout: 800 * time.Millisecond, Logf: t.Logf})
			if err != nil {
				t.Fatalf("campaign %s seed=%d could not be carried out: %v", kind, seed, err)
			}
			fmt.Println(rep.Summary())
			if !rep.OK() {
				t.Errorf("%s\n%s", rep.Summary(), rep.Tail(historyTailOnError))
			}
			if len(rep.Faults) != 1 || rep.Faults[0].Kind != campaign.PauseClientProcess {
				t.Fatalf("faults %v; want one pause-client-process", rep.Faults)
			}
			var frozen []campaign.Hold
			for _, h := range rep.Holds {
				if h.Frozen {
					frozen = append(frozen, h)
				}
			}
			f := rep.Faults[0]
			switch {
			case len(frozen) != 1:
				t.Errorf("%d frozen holds; want the one of %s", len(frozen), f.String())
			case frozen[0].Client != f.Client || frozen[0].ThawedAt <= frozen[0].FrozenAt || frozen[0].Exit < frozen[0].ThawedAt:
				t.Errorf("the frozen hold %s does not span the freeze of %s", frozen[0].String(), f.String())
			case kind != campaign.Counter && (frozen[0].Token == 0 || frozen[0].Write < 0):
				t.Errorf("the frozen holder %s did not write with its token after it woke", frozen[0].String())
			}
		})
	}
}
