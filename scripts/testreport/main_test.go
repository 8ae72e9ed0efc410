package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func run(t *testing.T, events ...event) (string, bool) {
	t.Helper()
	var out bytes.Buffer
	r := newReport(&out)
	for _, e := range events {
		r.add(e)
	}
	ok := r.close(2)
	return out.String(), ok
}

func TestFailedTestOutputIsPrintedAndNamed(t *testing.T) {
	out, ok := run(t,
		event{Action: "output", Package: "p", Test: "TestA", Output: "=== RUN   TestA\n"},
		event{Action: "output", Package: "p", Test: "TestA", Output: "    a_test.go:3: boom\n"},
		event{Action: "fail", Package: "p", Test: "TestA", Elapsed: 1.5},
		event{Action: "output", Package: "p", Test: "TestB", Output: "quiet on pass\n"},
		event{Action: "pass", Package: "p", Test: "TestB", Elapsed: 0.5},
		event{Action: "output", Package: "p", Output: "FAIL\tp\t2.0s\n"},
		event{Action: "fail", Package: "p"},
	)
	if ok {
		t.Error("a run with a failed test passed")
	}
	for _, want := range []string{"a_test.go:3: boom", "FAIL\tp\t2.0s", "  TestA  p", "tests: 1 passed, 1 failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "quiet on pass") {
		t.Errorf("a passing test's output was printed:\n%s", out)
	}
}

func TestSlowestListsTopLevelTestsLongestFirst(t *testing.T) {
	out, ok := run(t,
		event{Action: "pass", Package: "p", Test: "TestShort", Elapsed: 1},
		event{Action: "pass", Package: "p", Test: "TestLong", Elapsed: 9},
		event{Action: "pass", Package: "p", Test: "TestLong/sub", Elapsed: 8},
		event{Action: "pass", Package: "p", Test: "TestMiddle", Elapsed: 4},
	)
	if !ok {
		t.Errorf("a passing run failed:\n%s", out)
	}
	long, middle := strings.Index(out, "TestLong"), strings.Index(out, "TestMiddle")
	if long < 0 || middle < long || strings.Contains(out, "TestShort") || strings.Contains(out, "TestLong/sub") {
		t.Errorf("want TestLong then TestMiddle, top-level only, two rows:\n%s", out)
	}
}

func TestBuildFailureOrEmptyRunFails(t *testing.T) {
	if _, ok := run(t, event{Action: "build-fail", Package: "p"}, event{Action: "pass", Package: "q", Test: "T"}); ok {
		t.Error("a run with a build failure passed")
	}
	if _, ok := run(t); ok {
		t.Error("a run with no test passed")
	}
}

func TestUnfinishedTestsOfADeadPackageAreShown(t *testing.T) {
	out, _ := run(t,
		event{Action: "output", Package: "p", Test: "TestHang", Output: "last words\n"},
		event{Action: "fail", Package: "p"},
	)
	if !strings.Contains(out, "last words") {
		t.Errorf("a hung test's output was lost:\n%s", out)
	}
}

// The closing line gives the whole run's wall-clock time, from the report's
// start to its close: the figure README.md quotes for make test.
func TestClosingLineGivesTheRunsWallTime(t *testing.T) {
	var out bytes.Buffer
	r := newReport(&out)
	r.now = func() time.Time { return r.began.Add(18*time.Minute + 4*time.Second + 300*time.Millisecond) }
	r.add(event{Action: "pass", Package: "p", Test: "T", Elapsed: 1})
	r.close(1)
	if want := "tests: 1 passed, 0 failed in 18m4s\n"; !strings.HasSuffix(out.String(), want) {
		t.Errorf("closing line: want %q:\n%s", want, out.String())
	}
}
