package campaign_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/testing/campaign"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// Under plain go test (CI) the campaigns use a fixed seed and short budgets,
// each well under a minute; make chaos sets CAMPAIGN_SEED and CAMPAIGN_SECS
// (the fault phase of each campaign) for longer runs.
const (
	defaultSeed        = 1
	defaultMutexSecs   = 20
	defaultRWLockSecs  = 20
	defaultLeaseSecs   = 20
	defaultElectSecs   = 20
	defaultCounterSecs = 20
	defaultTTLSecs     = 4
	historyTailOnError = 80
	// maxVoidRuns bounds the runs of one test whose ensemble diverged.
	maxVoidRuns = 3
)

func TestCampaign(t *testing.T) {
	runCampaign(t, campaign.MutexLock, defaultMutexSecs*time.Second)
}

func TestCampaignReadWrite(t *testing.T) {
	runCampaign(t, campaign.ReadWriteLock, defaultRWLockSecs*time.Second)
}

// TestCampaignSemaphore runs InterProcessSemaphoreV2 with 2 leases among 5
// clients.
func TestCampaignSemaphore(t *testing.T) {
	runCampaign(t, campaign.Semaphore, defaultLeaseSecs*time.Second)
}

func TestCampaignSemaphoreMutex(t *testing.T) {
	runCampaign(t, campaign.SemaphoreMutex, defaultLeaseSecs*time.Second)
}

// TestCampaignElectionLatch runs LeaderLatch terms that write with their
// fencing tokens.
func TestCampaignElectionLatch(t *testing.T) {
	runCampaign(t, campaign.ElectionLatch, defaultElectSecs*time.Second)
}

// TestCampaignElectionSelector runs LeaderSelector terms that write with
// their fencing tokens.
func TestCampaignElectionSelector(t *testing.T) {
	runCampaign(t, campaign.ElectionSelector, defaultElectSecs*time.Second)
}

// TestCampaignCounter has every client increment a DistributedAtomicLong
// (half of them promoting to a lock) and a SharedCount, checked for
// exactness.
func TestCampaignCounter(t *testing.T) {
	runCampaign(t, campaign.Counter, defaultCounterSecs*time.Second)
}

// TestCampaignTTL runs InterProcessMutex under the persistent TTL driver,
// each client with a protected id of its own, its holds cut off for longer
// than the one-second TTL; half the clients use the session error policy, so
// the lease's end is what tells them.
func TestCampaignTTL(t *testing.T) {
	runCampaign(t, campaign.TTLMutexLock, defaultTTLSecs*time.Second,
		zktest.WithExtendedTypes(), zktest.WithContainerCheckInterval(200*time.Millisecond))
}

func runCampaign(t *testing.T, kind campaign.LockKind, defaultDuration time.Duration, opts ...zktest.ServerOption) {
	runCampaignConfig(t, campaign.Config{Kind: kind, Duration: defaultDuration}, opts...)
}

// runCampaignConfig runs cfg, its seed and duration replaced by
// CAMPAIGN_SEED and CAMPAIGN_SECS when set, and returns its report. A run
// whose ensemble diverged (its members disagreed on the outcome after
// syncing with the leader: a ZooKeeper defect, see docs/campaign.md) is void
// and runs again on a fresh ensemble, up to maxVoidRuns times; its summary,
// violations and history tail are logged, and printed again when every test
// has run (reportingVoidRuns).
func runCampaignConfig(t *testing.T, cfg campaign.Config, opts ...zktest.ServerOption) *campaign.Report {
	seed, duration := settings(t, cfg.Duration)
	kind := cfg.Kind
	cfg.Seed, cfg.Duration, cfg.Logf = seed, duration, t.Logf
	var rep *campaign.Report
	for run := 1; ; run++ {
		cluster := zktest.StartCluster(t, 3, opts...)
		ctx, cancel := context.WithTimeout(context.Background(), duration+5*time.Minute)
		var err error
		rep, err = campaign.Run(ctx, cluster, cfg)
		cancel()
		if err != nil {
			t.Fatalf("campaign %s seed=%d secs=%d could not be carried out: %v", kind, seed, int(duration/time.Second), err)
		}
		fmt.Println(rep.Summary())
		if !rep.Verdict.Diverged || run == maxVoidRuns {
			break
		}
		void := fmt.Sprintf("VOID RUN %d of %s: ZooKeeper's replicas diverged, or it reported its own state inconsistent, so the run judges nothing; again on a fresh ensemble:\n%s\n%s",
			run, kind, rep.Summary(), rep.Tail(historyTailOnError))
		t.Log(void)
		keepVoidRun(void)
		if err := cluster.Close(); err != nil {
			t.Logf("close the diverged ensemble: %v", err)
		}
	}
	t.Logf("%s: %s", kind, rep.Details())
	if !rep.OK() {
		t.Errorf("%s\n%s", rep.Summary(), rep.Tail(historyTailOnError))
	}
	if len(rep.Faults) == 0 {
		t.Errorf("%s: the nemesis injected no fault in %v: the campaign proved nothing", rep.Summary(), duration)
	}
	return rep
}

// settings reads CAMPAIGN_SEED and CAMPAIGN_SECS, or returns the defaults.
func settings(t *testing.T, defaultDuration time.Duration) (uint64, time.Duration) {
	t.Helper()
	seed := uint64(defaultSeed)
	if s := os.Getenv("CAMPAIGN_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("CAMPAIGN_SEED=%q: want a non-negative integer: %v", s, err)
		}
		seed = v
	}
	duration := defaultDuration
	if s := os.Getenv("CAMPAIGN_SECS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v <= 0 {
			t.Fatalf("CAMPAIGN_SECS=%q: want a positive number of seconds", s)
		}
		duration = time.Duration(v) * time.Second
	}
	return seed, duration
}
