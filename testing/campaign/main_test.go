package campaign_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

// Every goroutine of the campaign's clients, proxies and workers must be gone
// when the tests end.
func TestMain(m *testing.M) { goleak.VerifyTestMain(reportingVoidRuns{m}) }

// voidRuns are the runs of this test binary that were void (ZooKeeper lost
// its own consistency) and ran again: each one's summary, violations and
// history tail.
var voidRuns struct {
	sync.Mutex
	reports []string
}

// keepVoidRun records a void run's report for reportingVoidRuns.
func keepVoidRun(report string) {
	voidRuns.Lock()
	defer voidRuns.Unlock()
	voidRuns.reports = append(voidRuns.reports, report)
}

// reportingVoidRuns runs the tests, then prints every void run outside any
// test: a test whose void run was followed by a clean one passes, and the
// output of a passing test is shown only under -v, but a package's own
// output is shown by make test's report too. A void run can hide a recipe
// defect that coincided with ZooKeeper's; a human must be able to see it.
type reportingVoidRuns struct{ m *testing.M }

func (r reportingVoidRuns) Run() int {
	code := r.m.Run()
	voidRuns.Lock()
	defer voidRuns.Unlock()
	if n := len(voidRuns.reports); n > 0 {
		fmt.Printf("VOID RUNS: %d campaign run(s) were void and ran again; read each for a recipe defect beside ZooKeeper's:\n%s",
			n, strings.Join(voidRuns.reports, ""))
	}
	return code
}
