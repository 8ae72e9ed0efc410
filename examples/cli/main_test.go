package main

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/examples/internal/demotest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRun runs the demo against a real ZooKeeper: it fails if the two jobs'
// commands overlapped.
func TestRun(t *testing.T) {
	demotest.Run(t, run, "built zkcurator from this repository", "job-a started, fencing token", "job-b done", "OK: ")
}
