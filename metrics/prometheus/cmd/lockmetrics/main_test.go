package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

// The served counts add up: every cycle the program counted is an
// acquisition the metrics counted, give or take the ones cut short at the end.
func TestServedCountsMatchTheCycles(t *testing.T) {
	srv := zktest.StartServer(t)
	t.Setenv("ZK_CONNECT", srv.ConnectString())
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, []string{"-clients", "3", "-duration", "2s", "-addr", "127.0.0.1:0"}, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	cycles := regexp.MustCompile(`(\d+) lock cycles`).FindStringSubmatch(out.String())
	acquired := regexp.MustCompile(`zkcurator_lock_acquisitions_total\{recipe="mutex",result="acquired"\} (\d+)`).FindStringSubmatch(out.String())
	if cycles == nil || acquired == nil {
		t.Fatalf("no cycle count or acquisition series in:\n%s", out.String())
	}
	n, _ := strconv.Atoi(cycles[1])
	a, _ := strconv.Atoi(acquired[1])
	if n == 0 || a < n || a > n+3 {
		t.Fatalf("%d cycles, %d acquisitions served: want acquisitions = cycles, plus at most one per client cut short\n%s", n, a, out.String())
	}
}
