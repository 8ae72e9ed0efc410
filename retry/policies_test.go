package retry_test

import (
	"math"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/retry"
)

func TestNTimes(t *testing.T) {
	for _, p := range []retry.NTimes{
		{N: 0, Sleep: time.Millisecond},
		{N: 1, Sleep: 0},
		{N: 3, Sleep: 250 * time.Millisecond},
		{N: 100, Sleep: time.Hour},
	} {
		for retryCount := 0; retryCount <= p.N+2; retryCount++ {
			sleep, ok := p.AllowRetry(retryCount, time.Duration(retryCount)*time.Hour)
			if want := retryCount < p.N; ok != want {
				t.Errorf("%+v: AllowRetry(%d) ok = %t, want %t", p, retryCount, ok, want)
			}
			if ok && sleep != p.Sleep {
				t.Errorf("%+v: AllowRetry(%d) sleep = %v, want %v", p, retryCount, sleep, p.Sleep)
			}
		}
	}
}

func TestOneTime(t *testing.T) {
	p := retry.OneTime{Sleep: 40 * time.Millisecond}
	if sleep, ok := p.AllowRetry(0, time.Hour); !ok || sleep != p.Sleep {
		t.Errorf("AllowRetry(0) = %v, %t; want %v, true", sleep, ok, p.Sleep)
	}
	for _, retryCount := range []int{1, 2, math.MaxInt} {
		if _, ok := p.AllowRetry(retryCount, 0); ok {
			t.Errorf("AllowRetry(%d) allowed a second retry", retryCount)
		}
	}
	if sleep, ok := (retry.OneTime{}).AllowRetry(0, 0); !ok || sleep != 0 {
		t.Errorf("zero OneTime: AllowRetry(0) = %v, %t; want 0, true (retry at once)", sleep, ok)
	}
}

func TestUntilElapsedComparesElapsedBeforeTheSleep(t *testing.T) {
	p := retry.UntilElapsed{MaxElapsed: 10 * time.Millisecond, Sleep: 8 * time.Millisecond}
	for _, tc := range []struct {
		elapsed time.Duration
		ok      bool
	}{
		{-time.Second, true},
		{0, true},
		{time.Nanosecond, true},
		// 9ms + the 8ms sleep ends past MaxElapsed, but Curator compares
		// the elapsed time measured before the sleep.
		{9 * time.Millisecond, true},
		{p.MaxElapsed - time.Nanosecond, true},
		{p.MaxElapsed, false},
		{p.MaxElapsed + time.Nanosecond, false},
		{math.MaxInt64, false},
	} {
		sleep, ok := p.AllowRetry(0, tc.elapsed)
		if ok != tc.ok {
			t.Errorf("AllowRetry(0, %v) ok = %t, want %t", tc.elapsed, ok, tc.ok)
		}
		if ok && sleep != p.Sleep {
			t.Errorf("AllowRetry(0, %v) sleep = %v, want %v", tc.elapsed, sleep, p.Sleep)
		}
	}
}

func TestUntilElapsedTinyDurations(t *testing.T) {
	p := retry.UntilElapsed{MaxElapsed: time.Nanosecond, Sleep: 0}
	if sleep, ok := p.AllowRetry(0, 0); !ok || sleep != 0 {
		t.Errorf("AllowRetry(0, 0) = %v, %t; want 0, true", sleep, ok)
	}
	if _, ok := p.AllowRetry(0, time.Nanosecond); ok {
		t.Error("AllowRetry(0, 1ns) allowed a retry at MaxElapsed 1ns")
	}
}

func TestUntilElapsedIgnoresRetryCount(t *testing.T) {
	p := retry.UntilElapsed{MaxElapsed: time.Second, Sleep: time.Millisecond}
	for _, retryCount := range []int{0, 1, 1 << 20, math.MaxInt32, math.MaxInt} {
		if _, ok := p.AllowRetry(retryCount, 0); !ok {
			t.Errorf("AllowRetry(%d, 0) refused before MaxElapsed", retryCount)
		}
	}
}

func TestForeverAlwaysAllows(t *testing.T) {
	p := retry.Forever{Interval: 3 * time.Millisecond}
	for _, retryCount := range []int{0, 1, 29, 1 << 30, math.MaxInt} {
		for _, elapsed := range []time.Duration{0, 24 * time.Hour, math.MaxInt64} {
			sleep, ok := p.AllowRetry(retryCount, elapsed)
			if !ok || sleep != p.Interval {
				t.Errorf("AllowRetry(%d, %v) = %v, %t; want %v, true", retryCount, elapsed, sleep, ok, p.Interval)
			}
		}
	}
}

func TestInvalidPoliciesAllowNoRetry(t *testing.T) {
	for _, p := range []retry.Policy{
		retry.ExponentialBackoff{},
		retry.ExponentialBackoff{BaseSleep: time.Second, MaxSleep: time.Millisecond, MaxRetries: 3},
		retry.NTimes{N: 3, Sleep: -time.Millisecond},
		retry.OneTime{Sleep: -time.Millisecond},
		retry.UntilElapsed{Sleep: time.Millisecond},
		retry.Forever{},
	} {
		if sleep, ok := p.AllowRetry(0, 0); ok {
			t.Errorf("invalid %#v allowed a retry after %v", p, sleep)
		}
	}
}
