package campaign

import (
	"context"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

// The faults a campaign's rounds owe are injected whatever the duration:
// a budget that has passed before the first fault (a short CAMPAIGN_SECS,
// or a loaded machine's slow faults) cuts no round short, and faults beyond
// the rounds' still stop at the budget.
func TestNemesisInjectsFullRoundsPastItsBudget(t *testing.T) {
	cluster := zktest.StartCluster(t, 2)
	proxies, err := startProxies(cluster, 2)
	t.Cleanup(func() { closeProxies(proxies) })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n := newNemesis(1, 0, cluster, proxies, nil, time.Second, newClock(), t.Logf, []FaultKind{SeverClient})
	faults, _, err := n.run(ctx, time.Nanosecond, 2, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(faults) != 2 {
		t.Fatalf("%d faults with a budget long passed and two owed; want exactly 2: %v", len(faults), faults)
	}
}
