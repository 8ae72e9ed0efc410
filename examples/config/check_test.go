package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

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
