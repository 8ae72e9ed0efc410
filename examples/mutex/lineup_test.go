package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestLineupEndsAtFirstFailure checks that a failing worker ends the
// lineup: waiting for it returns, no later worker starts, and Finish
// returns the failure. No ZooKeeper is involved: the workers are fakes.
func TestLineupEndsAtFirstFailure(t *testing.T) {
	line := newLineup(context.Background(), newPrinter(nil))
	boom := errors.New("boom")
	line.Start(1, func(context.Context) error { return boom })
	done := make(chan struct{})
	go func() {
		defer close(done)
		line.AwaitInLine(1, nil)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("AwaitInLine(1) still waits for a worker that failed")
	}
	line.Start(2, func(context.Context) error {
		t.Error("worker 2 started after the lineup failed")
		return nil
	})
	line.AwaitInLine(2, func(context.Context) ([]string, error) {
		t.Error("AwaitInLine asked for the nodes after the lineup failed")
		return nil, nil
	})
	if res, err := line.Finish(); !errors.Is(err, boom) || res != nil {
		t.Errorf("Finish = %v, %v; want nil and the worker's error", res, err)
	}
}

// TestLineupRecordsOrders checks the happy path with fake workers that
// "hold" one after another: worker 1 keeps the lock until Finish, the
// arrival and acquisition orders are recorded.
func TestLineupRecordsOrders(t *testing.T) {
	line := newLineup(context.Background(), newPrinter(nil))
	var inLine []string // the fake lock's queue, as ParticipantNodes would list it
	turn := make([]chan struct{}, 4)
	for i := range turn {
		turn[i] = make(chan struct{})
	}
	for n := 1; n <= 3; n++ {
		inLine = append(inLine, workerName(n))
		line.Start(n, func(ctx context.Context) error {
			if n > 1 {
				<-turn[n-1] // the worker before has released
			}
			line.Acquired(n, fmt.Sprintf("/locks/x/lock-%010d", n))()
			close(turn[n])
			return nil
		})
		line.AwaitInLine(n, func(context.Context) ([]string, error) { return inLine, nil })
	}
	select {
	case <-turn[1]:
		t.Fatal("worker 1 released before everyone was in line and Finish was called")
	default:
	}
	res, err := line.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if orderString(res.Arrival) != "1 2 3" || orderString(res.Acquired) != "1 2 3" {
		t.Errorf("arrival %v, acquired %v; want 1 2 3 both", res.Arrival, res.Acquired)
	}
	if err := checkFair(res, 3).Err(); err != nil {
		t.Errorf("checkFair: %v", err)
	}
}

// contentionOf builds a contention outcome as if the workers in acquired
// had held the lock one after another, plus extra overlapping entries.
func contentionOf(arrival, acquired []int, overlap bool) *contention {
	res := &contention{Arrival: arrival, Acquired: acquired, Section: &section{}}
	for _, n := range acquired {
		leave := res.Section.Enter(workerName(n), true)
		if overlap {
			res.Section.Enter("intruder", true)()
		}
		leave()
	}
	return res
}

func TestCheckFair(t *testing.T) {
	tests := []struct {
		name     string
		res      *contention
		workers  int
		wantFail string // "" when the check must pass
	}{
		{"in order", contentionOf([]int{1, 2, 3}, []int{1, 2, 3}, false), 3, ""},
		{"out of order", contentionOf([]int{1, 2, 3}, []int{1, 3, 2}, false), 3, "differs from arrival order"},
		{"overlap", contentionOf([]int{1, 2}, []int{1, 2}, true), 2, "mutual exclusion broken"},
		{"twice", contentionOf([]int{1, 2, 3}, []int{1, 2, 2}, false), 3, "worker 2 acquired twice"},
		{"missing", contentionOf([]int{1, 2, 3}, []int{1, 2}, false), 3, "2 acquisitions for 3 workers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkFair(tt.res, tt.workers).Err()
			switch {
			case tt.wantFail == "" && err != nil:
				t.Errorf("checkFair failed: %v", err)
			case tt.wantFail != "" && (!errors.Is(err, errInvariant) || !strings.Contains(err.Error(), tt.wantFail)):
				t.Errorf("checkFair = %v, want errInvariant mentioning %q", err, tt.wantFail)
			}
		})
	}
	// The unfair demo checks exclusion only: any order passes.
	if err := checkExclusive(contentionOf([]int{1, 2, 3}, []int{1, 3, 2}, false), 3).Err(); err != nil {
		t.Errorf("checkExclusive failed on a shuffled order: %v", err)
	}
}

func TestSectionCountsViolations(t *testing.T) {
	s := &section{}
	r1 := s.Enter("reader 1", false)
	r2 := s.Enter("reader 2", false)
	w := s.Enter("writer", true) // enters while two readers are inside
	w()
	r1()
	r2()
	r2() // a second exit is ignored
	x := s.Enter("writer again", true)
	y := s.Enter("intruder", true) // enters while a writer is inside
	y()
	x()

	st := s.Stats()
	if st.Inside != 0 || st.MaxInside != 3 || st.MaxShared != 2 || st.Entries != 5 {
		t.Errorf("inside %d, maxInside %d, maxShared %d, entries %d; want 0, 3, 2, 5", st.Inside, st.MaxInside, st.MaxShared, st.Entries)
	}
	if v := st.Violations; len(v) != 2 || !strings.HasPrefix(v[0], "writer entered") || !strings.HasPrefix(v[1], "intruder entered") {
		t.Errorf("violations = %q, want the writer's and the intruder's", v)
	}
}

func TestVerdict(t *testing.T) {
	v := &verdict{}
	v.Expect(true, "not recorded")
	if err := v.Err(); err != nil {
		t.Fatalf("Err() = %v with nothing failed", err)
	}
	v.Expect(false, "first %d", 1)
	v.Expect(false, "second")
	err := v.Err()
	if !errors.Is(err, errInvariant) || !strings.Contains(err.Error(), "first 1; second") {
		t.Errorf("Err() = %v, want errInvariant naming both failures", err)
	}
}
