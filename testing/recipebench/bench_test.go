package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestEveryBenchRunsAtATinySize runs every bench on both sides for a few
// cycles against a real ZooKeeper and checks the counts each run reports
// (each run itself checks its counter, cycles and cache against the
// server), then the report's tables. It asserts counts, never speeds.
func TestEveryBenchRunsAtATinySize(t *testing.T) {
	srv := zktest.StartServer(t)
	var log bytes.Buffer
	cfg, err := parse([]string{"-connect", srv.ConnectString(), "-warmup", "0", "-repeat", "1", "-session-timeout", "2s",
		"-atomic-ops", "16", "-atomic", "1:10,4:0", "-handoffs", "2", "-kill-handoffs", "1",
		"-sem-leases", "2", "-sem-clients", "4", "-sem-ops", "8", "-queue", "1,4", "-queue-items", "8", "-cache-nodes", "31,301", "-tree-children", "9", "-burst-writes", "20"}, &log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rows, err := measureAll(ctx, cfg, &log)
	if err != nil {
		t.Fatalf("%v\nprogress:\n%s", err, log.String())
	}

	// What each run must have done, by the bench's slug.
	want := map[string]struct {
		key string
		n   float64
	}{
		"atomic-c1-r10":             {"increments", 16},
		"atomic-c4-r0":              {"increments", 16},
		"latch-p4":                  {"handoffs", 2},
		"latch-p4-kill":             {"handoffs", 1},
		"selector-p4":               {"handoffs", 2},
		"selector-p4-kill":          {"handoffs", 1},
		"semaphore-l2-c4":           {"cycles", 8},
		"queue-c1":                  {"taken", 8},
		"queue-c4":                  {"taken", 8},
		"tree-load-31":              {"nodes", 31},
		"tree-load-301":             {"nodes", 301},
		"tree-burst-31":             {"changed", 20},
		"tree-burst-301":            {"changed", 20},
		"curator-load-31":           {"nodes", 31},
		"curator-load-301":          {"nodes", 301},
		"curator-burst-31":          {"changed", 20},
		"curator-burst-301":         {"changed", 20},
		"curator-oneshot-load-31":   {"nodes", 31},
		"curator-oneshot-load-301":  {"nodes", 301},
		"curator-oneshot-burst-31":  {"changed", 20},
		"curator-oneshot-burst-301": {"changed", 20},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d benches ran, want %d", len(rows), len(want))
	}
	for _, r := range rows {
		w, ok := want[r.b.slug]
		if !ok {
			t.Fatalf("unexpected bench %q", r.b.slug)
		}
		for _, impl := range []string{implCurator, implOurs} {
			if len(r.res[impl]) != 1 {
				t.Fatalf("%s, %s: %d measured runs, want 1", r.b.slug, impl, len(r.res[impl]))
			}
			s := r.res[impl][0]
			if s[w.key] != w.n {
				t.Errorf("%s, %s: %s = %v, want %v", r.b.slug, impl, w.key, s[w.key], w.n)
			}
			for _, m := range r.b.metrics {
				if _, ok := s[m.key]; !ok {
					t.Errorf("%s, %s: no %s in %v", r.b.slug, impl, m.key, s)
				}
			}
		}
		// Our side of a load on one-shot watches also measures go-zookeeper's
		// watches alone; a CuratorCache on a recursive watch has none.
		floor, measured := r.res[implOurs][0][watchKey]
		switch recursive := strings.HasPrefix(r.b.slug, kindCurator+"-load-"); {
		case w.key == "nodes" && !recursive && !(floor > 0):
			t.Errorf("%s: %s = %v, want the heap go-zookeeper's watches hold per node", r.b.slug, watchKey, floor)
		case recursive && measured:
			t.Errorf("%s: %s = %v measured for a cache on a recursive watch", r.b.slug, watchKey, floor)
		}
	}

	var out bytes.Buffer
	writeReport(ctx, &out, cfg, rows)
	recipes := map[string]bool{}
	for _, r := range rows {
		recipes[r.b.recipe] = true
	}
	if got := strings.Count(out.String(), "### "); got != len(recipes) {
		t.Errorf("the report has %d tables, want one per recipe of %d:\n%s", got, len(recipes), out.String())
	}
	for _, want := range []string{"| 301 nodes |", "| 301 nodes, 20 writes |", "bytes/node", "go-zookeeper's record of the data watch", "the writer alone made"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(out.String(), "| 4 producers, 4 consumers, 8 items, lock path |") || !strings.Contains(out.String(), "zkcurator takes/s") {
		t.Errorf("the report lacks the 4-producer queue row or its takes:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "| 4 clients, 0 optimistic retries, 16 increments |") {
		t.Errorf("the report lacks the 4-client counter row:\n%s", out.String())
	}
}

// TestFlagsRejectBadValues checks that bad flags are refused before anything
// starts, naming the value.
func TestFlagsRejectBadValues(t *testing.T) {
	for _, args := range [][]string{
		{"-only", "atomic,locks"},
		{"-atomic", "1:10,8"},
		{"-repeat", "0"},
		{"-participants", "1"},
		{"-session-timeout", "10ms"},
		{"-cache-nodes", "1000,x"},
		{"-burst-writes", "99999"},
		{"-tree-children", "5000"},
		{"-queue", "1,0"},
		{"-queue-items", "0"},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), args, &bytes.Buffer{}, &stderr); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
		if !strings.Contains(stderr.String(), args[1]) && !strings.Contains(stderr.String(), args[0]) {
			t.Errorf("%q: the error does not name the value: %s", args, stderr.String())
		}
		if strings.Count(stderr.String(), "recipebench: ") != 1 {
			t.Errorf("%q: want the program's name once: %s", args, stderr.String())
		}
	}
}

// TestReportNotesACuratorCacheThatDidNotLoad checks that a Curator cache
// that reported itself initialized without the whole tree gets no figure
// and a note naming what it held, rather than a misleading ratio.
func TestReportNotesACuratorCacheThatDidNotLoad(t *testing.T) {
	b := cacheLoadBench(kindCurator, shapeFor(100000, 99), &trees{})
	res := results{
		implCurator: {{shortKey: 66535}},
		implOurs:    {{"load_ms": 1000, "bytes_node": 1100, "nodes": 100001}},
	}
	var out bytes.Buffer
	writeTable(&out, b.recipe, []row{{b: b, res: res}}, 1)
	for _, want := range []string{"| 100001 nodes | - | 1000 | - | - | 1100 | - |", "it held 66535 nodes", "CURATOR-690"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, out.String())
		}
	}
}

// TestReportNotesTheWritersRate checks that a burst's table says how fast
// its writer alone went in each side's runs, the bound of their rates, and how long after
// the writer's last reply each consumer saw the last change.
func TestReportNotesTheWritersRate(t *testing.T) {
	b := cacheBurstBench(kindCurator, shapeFor(10000, 99), 5000, &trees{})
	res := results{
		implCurator: {{"events_s": 2500, writerKey: 2600, lagKey: 40}},
		implOurs:    {{"events_s": 2800, writerKey: 2900, lagKey: 3}},
	}
	var out bytes.Buffer
	writeTable(&out, b.recipe, []row{{b: b, res: res}}, 1)
	for _, want := range []string{"the writer alone made 2900 writes/s in zkcurator's runs and 2600 in Curator's", "zkcurator's consumer 3 ms and Curator's 40 ms"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, out.String())
		}
	}
}

// An error from deep in a run names the program once: with no java to find,
// the message was "recipebench: recipebench: java not found ...".
func TestRunErrorNamesTheProgramOnce(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"-connect", "127.0.0.1:1", "-only", "atomic"}, &bytes.Buffer{}, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "java") || strings.Count(stderr.String(), "recipebench: ") != 1 {
		t.Errorf("want one error naming java, with the program's name once: %s", stderr.String())
	}
}

// TestLockedWriterKeepsTheTail checks that the helper's stderr keeps its
// last bytes, for an error, and not the whole log of a run.
func TestLockedWriterKeepsTheTail(t *testing.T) {
	var w lockedWriter
	var all []byte
	for i := range 5000 {
		line := []byte(fmt.Sprintf("line %05d of the server's log\n", i))
		all = append(all, line...)
		if n, err := w.Write(line); n != len(line) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if got, want := w.tail(4000), string(all[len(all)-4000:]); got != want {
		t.Fatalf("tail(4000) = %q..., want %q...", got[:40], want[:40])
	}
	if len(w.buf) > 2*keepTail {
		t.Fatalf("kept %d bytes, want at most %d", len(w.buf), 2*keepTail)
	}
}
