package demo

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestSectionCountsViolations(t *testing.T) {
	s := &Section{}
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
	v := &Verdict{}
	v.Expect(true, "not recorded")
	if err := v.Err(); err != nil {
		t.Fatalf("Err() = %v with nothing failed", err)
	}
	v.Expect(false, "first %d", 1)
	v.Expect(false, "second")
	err := v.Err()
	if !errors.Is(err, ErrInvariant) || !strings.Contains(err.Error(), "first 1; second") {
		t.Errorf("Err() = %v, want ErrInvariant naming both failures", err)
	}
}

// contentionOf builds a contention outcome as if the workers in acquired
// had held the lock one after another, plus extra overlapping entries.
func contentionOf(arrival, acquired []int, overlap bool) *Contention {
	res := &Contention{Arrival: arrival, Acquired: acquired, Section: &Section{}}
	for _, n := range acquired {
		leave := res.Section.Enter(WorkerName(n), true)
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
		res      *Contention
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
			err := CheckFair(tt.res, tt.workers).Err()
			switch {
			case tt.wantFail == "" && err != nil:
				t.Errorf("CheckFair failed: %v", err)
			case tt.wantFail != "" && (!errors.Is(err, ErrInvariant) || !strings.Contains(err.Error(), tt.wantFail)):
				t.Errorf("CheckFair = %v, want ErrInvariant mentioning %q", err, tt.wantFail)
			}
		})
	}
	// The unfair demo checks exclusion only: any order passes.
	if err := CheckExclusive(contentionOf([]int{1, 2, 3}, []int{1, 3, 2}, false), 3).Err(); err != nil {
		t.Errorf("CheckExclusive failed on a shuffled order: %v", err)
	}
}

func TestCheckSale(t *testing.T) {
	tests := []struct {
		name     string
		r        Sale
		wantFail string
	}{
		{"right", Sale{Sold: 50, SoldOut: 10, Final: 0}, ""},
		{"oversold", Sale{Sold: 60, SoldOut: 0, Final: 0}, "60 sold, want 50"},
		{"lost update", Sale{Sold: 50, SoldOut: 10, Final: 3}, "stock left 3, want 0"},
		{"wrong sold out", Sale{Sold: 50, SoldOut: 9, Final: 0}, "9 told sold out, want 10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &Verdict{}
			CheckSale(v, "round", tt.r, 50, 60)
			err := v.Err()
			switch {
			case tt.wantFail == "" && err != nil:
				t.Errorf("CheckSale failed: %v", err)
			case tt.wantFail != "" && (err == nil || !strings.Contains(err.Error(), tt.wantFail)):
				t.Errorf("CheckSale = %v, want a failure mentioning %q", err, tt.wantFail)
			}
		})
	}
}

func TestFencedStore(t *testing.T) {
	s := &FencedStore{}
	for _, w := range []struct {
		token int64
		value string
		ok    bool
	}{
		{10, "a", true},
		{10, "a again", true}, // the same holder writes twice
		{12, "b", true},
		{10, "stale", false},
		{11, "stale too", false},
		{13, "c", true},
	} {
		err := s.Write(w.token, w.value)
		if w.ok != (err == nil) || (!w.ok && !errors.Is(err, ErrStaleToken)) {
			t.Errorf("Write(%d, %q) = %v, want ok=%t", w.token, w.value, err, w.ok)
		}
	}
	if got := s.Read(); got != "c" {
		t.Errorf("Read() = %q, want %q", got, "c")
	}
}

func TestWaitUntil(t *testing.T) {
	calls := 0
	err := WaitUntil(context.Background(), time.Second, "three calls", func(context.Context) (bool, error) {
		calls++
		return calls == 3, nil
	})
	if err != nil || calls != 3 {
		t.Errorf("WaitUntil = %v after %d calls, want nil after 3", err, calls)
	}
	err = WaitUntil(context.Background(), 50*time.Millisecond, "never", func(context.Context) (bool, error) { return false, nil })
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "never") {
		t.Errorf("WaitUntil on a false condition = %v, want a deadline error naming it", err)
	}
	boom := errors.New("boom")
	err = WaitUntil(context.Background(), time.Second, "failing", func(context.Context) (bool, error) { return false, boom })
	if !errors.Is(err, boom) {
		t.Errorf("WaitUntil on a failing condition = %v, want boom", err)
	}
}
