// Command testreport reads `go test -json` on standard input and prints what a plain
// `go test` run prints (each package's ok or FAIL line, and the output of every failed
// test), then the slowest top-level tests, the failed tests by name, and one closing
// line "tests: N passed, N failed in 18m4s": the wall-clock time from its own start
// (the pipeline's) to the end of its input, the whole run's duration that README.md
// quotes. It exits 1 when any test or package failed or nothing ran, so a pipeline
// fails with the suite.
//
//	go test -json ./... | go run ./scripts/testreport -slowest 10
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	ImportPath string // build-output and build-fail events
	Test       string
	Elapsed    float64
	Output     string
}

type testID struct{ pkg, name string }

// report accumulates a run's results as its events arrive.
type report struct {
	out       io.Writer
	pending   map[testID][]string // output of tests still running
	durations map[testID]time.Duration
	failed    []testID
	passed    int
	pkgFails  int
	began     time.Time
	now       func() time.Time
}

func newReport(out io.Writer) *report {
	return &report{out: out, pending: map[testID][]string{}, durations: map[testID]time.Duration{},
		began: time.Now(), now: time.Now}
}

func (r *report) add(e event) {
	if e.Test == "" {
		r.addPackage(e)
		return
	}
	id := testID{e.Package, e.Test}
	switch e.Action {
	case "output":
		r.pending[id] = append(r.pending[id], e.Output)
	case "pass", "skip":
		if e.Action == "pass" {
			r.passed++
		} else {
			fmt.Fprintf(r.out, "--- SKIP: %s (%s)\n", e.Test, e.Package)
		}
		r.finish(id, e)
	case "fail":
		r.failed = append(r.failed, id)
		for _, line := range r.pending[id] {
			fmt.Fprint(r.out, line)
		}
		r.finish(id, e)
	}
}

func (r *report) finish(id testID, e event) {
	delete(r.pending, id)
	if !strings.Contains(id.name, "/") {
		r.durations[id] = time.Duration(e.Elapsed * float64(time.Second))
	}
}

// addPackage prints a package's own lines (ok, FAIL, build errors, output outside any
// test) as go test does, and counts failed packages.
func (r *report) addPackage(e event) {
	switch e.Action {
	case "build-output":
		fmt.Fprint(r.out, e.Output)
	case "build-fail":
		r.pkgFails++
	case "output":
		if e.Output != "PASS\n" && !strings.HasPrefix(e.Output, "=== ") {
			fmt.Fprint(r.out, e.Output)
		}
	case "fail":
		r.pkgFails++
		// A package that dies mid-test (a panic or a timeout) leaves its running
		// tests' output unprinted; print it, since it says where it died.
		for id, lines := range r.pending {
			if id.pkg == e.Package {
				fmt.Fprintf(r.out, "--- output of %s, unfinished:\n", id.name)
				for _, line := range lines {
					fmt.Fprint(r.out, line)
				}
				delete(r.pending, id)
			}
		}
	}
}

// close prints the summary and reports whether the run passed.
func (r *report) close(slowest int) bool {
	ids := make([]testID, 0, len(r.durations))
	for id := range r.durations {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return r.durations[ids[i]] > r.durations[ids[j]] })
	if len(ids) > slowest {
		ids = ids[:slowest]
	}
	if len(ids) > 0 {
		fmt.Fprintf(r.out, "\nslowest tests:\n")
		for _, id := range ids {
			fmt.Fprintf(r.out, "%8.1fs  %s  %s\n", r.durations[id].Seconds(), id.name, id.pkg)
		}
	}
	if len(r.failed) > 0 {
		fmt.Fprintf(r.out, "\nfailed tests:\n")
		for _, id := range r.failed {
			fmt.Fprintf(r.out, "  %s  %s\n", id.name, id.pkg)
		}
	}
	fmt.Fprintf(r.out, "\ntests: %d passed, %d failed in %v\n", r.passed, len(r.failed), r.now().Sub(r.began).Round(time.Second))
	return len(r.failed) == 0 && r.pkgFails == 0 && r.passed > 0
}

func main() {
	slowest := flag.Int("slowest", 10, "how many of the slowest top-level tests to list")
	flag.Parse()
	r := newReport(os.Stdout)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	for in.Scan() {
		var e event
		if err := json.Unmarshal(in.Bytes(), &e); err != nil || e.Action == "" {
			fmt.Println(in.Text()) // not test2json: go's own messages, printed as they are
			continue
		}
		if e.Package == "" {
			e.Package = e.ImportPath
		}
		r.add(e)
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(1)
	}
	if !r.close(*slowest) {
		os.Exit(1)
	}
}
