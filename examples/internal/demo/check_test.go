package demo

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestSectionCountsViolations(t *testing.T) {
	s := &section{}
	r1 := s.enter("reader 1", false)
	r2 := s.enter("reader 2", false)
	w := s.enter("writer", true) // enters while two readers are inside
	w()
	r1()
	r2()
	r2() // a second exit is ignored
	x := s.enter("writer again", true)
	y := s.enter("intruder", true) // enters while a writer is inside
	y()
	x()

	st := s.stats()
	if st.inside != 0 || st.maxInside != 3 || st.maxShared != 2 || st.entries != 5 {
		t.Errorf("inside %d, maxInside %d, maxShared %d, entries %d; want 0, 3, 2, 5", st.inside, st.maxInside, st.maxShared, st.entries)
	}
	if v := st.violations; len(v) != 2 || !strings.HasPrefix(v[0], "writer entered") || !strings.HasPrefix(v[1], "intruder entered") {
		t.Errorf("violations = %q, want the writer's and the intruder's", v)
	}
}

func TestVerdict(t *testing.T) {
	v := &verdict{}
	v.expect(true, "not recorded")
	if err := v.err(); err != nil {
		t.Fatalf("err() = %v with nothing failed", err)
	}
	v.expect(false, "first %d", 1)
	v.expect(false, "second")
	err := v.err()
	if !errors.Is(err, ErrInvariant) || !strings.Contains(err.Error(), "first 1; second") {
		t.Errorf("err() = %v, want ErrInvariant naming both failures", err)
	}
}

// contentionOf builds a contention outcome as if the workers in acquired
// had held the lock one after another, plus extra overlapping entries.
func contentionOf(arrival, acquired []int, overlap bool) *contention {
	res := &contention{arrival: arrival, acquired: acquired, sec: &section{}}
	for _, n := range acquired {
		leave := res.sec.enter(workerName(n), true)
		if overlap {
			res.sec.enter("intruder", true)()
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
			err := checkFair(tt.res, tt.workers).err()
			switch {
			case tt.wantFail == "" && err != nil:
				t.Errorf("checkFair failed: %v", err)
			case tt.wantFail != "" && (!errors.Is(err, ErrInvariant) || !strings.Contains(err.Error(), tt.wantFail)):
				t.Errorf("checkFair = %v, want ErrInvariant mentioning %q", err, tt.wantFail)
			}
		})
	}
	// The unfair demo checks exclusion only: any order passes.
	if err := checkExclusive(contentionOf([]int{1, 2, 3}, []int{1, 3, 2}, false), 3).err(); err != nil {
		t.Errorf("checkExclusive failed on a shuffled order: %v", err)
	}
}

func TestCheckSale(t *testing.T) {
	cfg := InventoryConfig{Stock: 50, Buyers: 60}
	tests := []struct {
		name     string
		r        sale
		wantFail string
	}{
		{"right", sale{sold: 50, soldOut: 10, final: 0}, ""},
		{"oversold", sale{sold: 60, soldOut: 0, final: 0}, "60 sold, want 50"},
		{"lost update", sale{sold: 50, soldOut: 10, final: 3}, "stock left 3, want 0"},
		{"wrong sold out", sale{sold: 50, soldOut: 9, final: 0}, "9 told sold out, want 10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &verdict{}
			checkSale(v, "round", tt.r, cfg)
			err := v.err()
			switch {
			case tt.wantFail == "" && err != nil:
				t.Errorf("checkSale failed: %v", err)
			case tt.wantFail != "" && (err == nil || !strings.Contains(err.Error(), tt.wantFail)):
				t.Errorf("checkSale = %v, want a failure mentioning %q", err, tt.wantFail)
			}
		})
	}
}

func TestFencedStore(t *testing.T) {
	s := &fencedStore{}
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
		err := s.write(w.token, w.value)
		if w.ok != (err == nil) || (!w.ok && !errors.Is(err, errStaleToken)) {
			t.Errorf("write(%d, %q) = %v, want ok=%t", w.token, w.value, err, w.ok)
		}
	}
	if got := s.read(); got != "c" {
		t.Errorf("read() = %q, want %q", got, "c")
	}
}

// TestBadConfig checks that every demo refuses an out-of-range setting,
// naming it, before it touches the network (the connect string is unusable).
func TestBadConfig(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		run  func() error
		want string
	}{
		{"mutex workers", func() error { return Mutex(ctx, "", nil, ContentionConfig{Workers: 1}) }, "Workers 1"},
		{"unfair hold", func() error { return Unfair(ctx, "", nil, ContentionConfig{Hold: time.Minute}) }, "Hold 1m0s"},
		{"reentrant depth", func() error { return Reentrant(ctx, "", nil, ReentrantConfig{Depth: 11}) }, "Depth 11"},
		{"readwrite readers", func() error { return ReadWrite(ctx, "", nil, ReadWriteConfig{Readers: -1}) }, "Readers -1"},
		{"semaphore leases", func() error { return Semaphore(ctx, "", nil, SemaphoreConfig{Leases: 21}) }, "Leases 21"},
		{"semaphore servers", func() error { return Semaphore(ctx, "", nil, SemaphoreConfig{Servers: -2}) }, "Servers -2"},
		{"inventory stock", func() error { return Inventory(ctx, "", nil, InventoryConfig{Stock: 1001}) }, "Stock 1001"},
		{"inventory think", func() error { return Inventory(ctx, "", nil, InventoryConfig{Think: 2 * time.Second}) }, "Think 2s"},
		{"fencing session", func() error { return Fencing(ctx, "", nil, FencingConfig{SessionTimeout: 100 * time.Millisecond}) }, "SessionTimeout 100ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one naming %q", err, tt.want)
			}
		})
	}
}

func TestWaitUntil(t *testing.T) {
	calls := 0
	err := waitUntil(context.Background(), time.Second, "three calls", func(context.Context) (bool, error) {
		calls++
		return calls == 3, nil
	})
	if err != nil || calls != 3 {
		t.Errorf("waitUntil = %v after %d calls, want nil after 3", err, calls)
	}
	err = waitUntil(context.Background(), 50*time.Millisecond, "never", func(context.Context) (bool, error) { return false, nil })
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "never") {
		t.Errorf("waitUntil on a false condition = %v, want a deadline error naming it", err)
	}
	boom := errors.New("boom")
	err = waitUntil(context.Background(), time.Second, "failing", func(context.Context) (bool, error) { return false, boom })
	if !errors.Is(err, boom) {
		t.Errorf("waitUntil on a failing condition = %v, want boom", err)
	}
}
