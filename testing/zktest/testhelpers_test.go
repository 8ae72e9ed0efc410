package zktest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// failures is a testing.TB that counts what would fail the test.
type failures struct {
	testing.TB
	errors, fatals int
}

func (f *failures) Helper()               {}
func (f *failures) Errorf(string, ...any) { f.errors++ }
func (f *failures) Fatal(...any)          { f.fatals++ }

// PrefixOnce fails a test only for an error that carries the prefix twice.
func TestPrefixOnce(t *testing.T) {
	for _, c := range []struct {
		err  error
		fail bool
	}{
		{nil, false},
		{errors.New("other: x"), false},
		{errors.New("pkg: x"), false},
		{fmt.Errorf("pkg: outer: %w", errors.New("pkg: inner")), true},
	} {
		f := &failures{TB: t}
		PrefixOnce(f, "pkg: ", "call", c.err)
		if got := f.errors > 0; got != c.fail {
			t.Errorf("PrefixOnce(%v) failed the test: %v, want %v", c.err, got, c.fail)
		}
	}
}

// Must fails a test at once on an error, and not on nil.
func TestMust(t *testing.T) {
	f := &failures{TB: t}
	Must(f, nil)
	if f.fatals != 0 {
		t.Error("Must(nil) failed the test")
	}
	Must(f, errors.New("boom"))
	if f.fatals != 1 {
		t.Error("Must(err) did not fail the test")
	}
}

// TestContext ends after DefaultWait, or when its test ends.
func TestTestContext(t *testing.T) {
	var ctx context.Context
	t.Run("inner", func(t *testing.T) {
		ctx = TestContext(t)
		deadline, ok := ctx.Deadline()
		if left := time.Until(deadline); !ok || left > DefaultWait || left < DefaultWait-time.Minute/2 {
			t.Errorf("deadline in %v (set: %v), want about %v", left, ok, DefaultWait)
		}
		if ctx.Err() != nil {
			t.Errorf("ended while its test runs: %v", ctx.Err())
		}
	})
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Errorf("after its test: %v, want context.Canceled", ctx.Err())
	}
}
