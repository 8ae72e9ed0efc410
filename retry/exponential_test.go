package retry_test

import (
	"math"
	"sync"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/retry"
)

// multiplierRange is Curator's range of max(1, random(2^(retryCount+1))).
func multiplierRange(retryCount int) (lo, hi int64) {
	return 1, int64(1)<<(retryCount+1) - 1
}

// multiplierMean is the expected value of max(1, r) for r uniform in [0, 2^(retryCount+1)).
func multiplierMean(retryCount int) float64 {
	n := int64(1) << (retryCount + 1)
	sum := int64(1) // r = 0 counts as 1
	for r := int64(1); r < n; r++ {
		sum += r
	}
	return float64(sum) / float64(n)
}

func TestExponentialBackoffFirstRetrySleepsBaseSleep(t *testing.T) {
	p := retry.ExponentialBackoff{BaseSleep: 7 * time.Millisecond, MaxRetries: 5}
	for i := 0; i < 1000; i++ {
		sleep, ok := p.AllowRetry(0, 0)
		if !ok || sleep != p.BaseSleep {
			t.Fatalf("AllowRetry(0, 0) = %v, %t; want %v, true (random(2) is 0 or 1, max(1, r) is 1)", sleep, ok, p.BaseSleep)
		}
	}
}

func TestExponentialBackoffDistributionMatchesCurator(t *testing.T) {
	base := 3 * time.Millisecond
	p := retry.ExponentialBackoff{BaseSleep: base, MaxRetries: 29}
	for retryCount := 1; retryCount <= 5; retryCount++ {
		lo, hi := multiplierRange(retryCount)
		draws := 200 * int(hi+1)
		seen := make(map[int64]int)
		var sum float64
		for i := 0; i < draws; i++ {
			sleep, ok := p.AllowRetry(retryCount, 0)
			if !ok {
				t.Fatalf("AllowRetry(%d, 0) refused below MaxRetries", retryCount)
			}
			if sleep%base != 0 {
				t.Fatalf("retry %d: sleep %v is not a multiple of BaseSleep %v", retryCount, sleep, base)
			}
			m := int64(sleep / base)
			if m < lo || m > hi {
				t.Fatalf("retry %d: multiplier %d outside Curator's range [%d, %d]", retryCount, m, lo, hi)
			}
			seen[m]++
			sum += float64(m)
		}
		// Each multiplier in the range has probability at least 1/(hi+1),
		// so 200 draws per value miss one with probability below e^-190.
		if len(seen) != int(hi) {
			t.Errorf("retry %d: saw %d distinct multipliers in %d draws, want all %d of [%d, %d]", retryCount, len(seen), draws, hi, lo, hi)
		}
		// The mean of uniform draws lies within six standard errors of the
		// expectation except with probability about 2e-9.
		want := multiplierMean(retryCount)
		stdErr := float64(hi+1) / math.Sqrt(12*float64(draws))
		if got := sum / float64(draws); math.Abs(got-want) > 6*stdErr {
			t.Errorf("retry %d: mean multiplier %.3f, want %.3f ± %.3f", retryCount, got, want, 6*stdErr)
		}
		// 0 and 1 both give the multiplier 1, so it is twice as likely as 2.
		if seen[1] <= seen[2] {
			t.Errorf("retry %d: multiplier 1 seen %d times, 2 seen %d times; max(1, r) should favour 1", retryCount, seen[1], seen[2])
		}
	}
}

func TestExponentialBackoffLastRetryStaysInRange(t *testing.T) {
	base := time.Millisecond
	p := retry.ExponentialBackoff{BaseSleep: base, MaxRetries: 29}
	lo, hi := multiplierRange(28)
	distinct := make(map[time.Duration]bool)
	for i := 0; i < 100; i++ {
		sleep, ok := p.AllowRetry(28, 0)
		if !ok {
			t.Fatal("AllowRetry(28, 0) refused with MaxRetries 29")
		}
		if m := int64(sleep / base); sleep%base != 0 || m < lo || m > hi {
			t.Fatalf("AllowRetry(28, 0) = %v, want a multiple of %v in [%d, %d]", sleep, base, lo, hi)
		}
		distinct[sleep] = true
	}
	if len(distinct) < 2 {
		t.Errorf("100 draws at retry 28 gave %d distinct sleeps, want randomness", len(distinct))
	}
}

func TestExponentialBackoffNeverAboveMaxSleep(t *testing.T) {
	p := retry.ExponentialBackoff{BaseSleep: 10 * time.Millisecond, MaxSleep: 35 * time.Millisecond, MaxRetries: 29}
	capped := 0
	distinct := make(map[time.Duration]bool)
	for retryCount := 0; retryCount < 29; retryCount++ {
		for i := 0; i < 200; i++ {
			sleep, ok := p.AllowRetry(retryCount, 0)
			if !ok {
				t.Fatalf("AllowRetry(%d, 0) refused below MaxRetries", retryCount)
			}
			if sleep < p.BaseSleep || sleep > p.MaxSleep {
				t.Fatalf("AllowRetry(%d, 0) = %v, want within [%v, %v]", retryCount, sleep, p.BaseSleep, p.MaxSleep)
			}
			if sleep == p.MaxSleep {
				capped++
			}
			distinct[sleep] = true
		}
	}
	if capped == 0 {
		t.Error("no sleep was capped at MaxSleep, though most draws beyond retry 2 exceed it")
	}
	if len(distinct) < 2 {
		t.Errorf("saw %d distinct sleeps, want more than one", len(distinct))
	}
}

func TestExponentialBackoffMaxSleepEqualToBaseSleep(t *testing.T) {
	p := retry.ExponentialBackoff{BaseSleep: time.Second, MaxSleep: time.Second, MaxRetries: 29}
	for retryCount := 0; retryCount < 29; retryCount++ {
		if sleep, ok := p.AllowRetry(retryCount, 0); !ok || sleep != time.Second {
			t.Fatalf("AllowRetry(%d, 0) = %v, %t; want 1s, true", retryCount, sleep, ok)
		}
	}
}

func TestExponentialBackoffSaturatesInsteadOfOverflowing(t *testing.T) {
	p := retry.ExponentialBackoff{BaseSleep: math.MaxInt64 / 4, MaxRetries: 29}
	saturated := 0
	for i := 0; i < 200; i++ {
		sleep, ok := p.AllowRetry(28, 0)
		if !ok {
			t.Fatal("AllowRetry(28, 0) refused with MaxRetries 29")
		}
		if sleep < p.BaseSleep {
			t.Fatalf("AllowRetry(28, 0) = %v, below BaseSleep %v: the product overflowed", sleep, p.BaseSleep)
		}
		if sleep == math.MaxInt64 {
			saturated++
		}
	}
	if saturated == 0 {
		t.Error("no draw saturated at the largest Duration, though almost all multipliers exceed 4")
	}
}

func TestExponentialBackoffMaxRetries(t *testing.T) {
	for _, tc := range []struct {
		maxRetries int
		allowed    int // retries allowed: retryCount 0..allowed-1
	}{
		{0, 0},
		{1, 1},
		{3, 3},
		{28, 28},
		{29, 29},
		{30, 29},
		{1000, 29},
		{math.MaxInt, 29},
	} {
		p := retry.ExponentialBackoff{BaseSleep: time.Microsecond, MaxRetries: tc.maxRetries}
		for retryCount := 0; retryCount <= tc.allowed+2; retryCount++ {
			_, ok := p.AllowRetry(retryCount, 0)
			if want := retryCount < tc.allowed; ok != want {
				t.Errorf("MaxRetries %d: AllowRetry(%d, 0) ok = %t, want %t", tc.maxRetries, retryCount, ok, want)
			}
		}
	}
}

func TestExponentialBackoffNegativeRetryCountCountsAsZero(t *testing.T) {
	p := retry.ExponentialBackoff{BaseSleep: 5 * time.Millisecond, MaxRetries: 1}
	for _, retryCount := range []int{-1, -64, math.MinInt} {
		if sleep, ok := p.AllowRetry(retryCount, 0); !ok || sleep != p.BaseSleep {
			t.Errorf("AllowRetry(%d, 0) = %v, %t; want %v, true", retryCount, sleep, ok, p.BaseSleep)
		}
	}
}

func TestExponentialBackoffIgnoresElapsed(t *testing.T) {
	p := retry.ExponentialBackoff{BaseSleep: time.Millisecond, MaxRetries: 2}
	for _, elapsed := range []time.Duration{-time.Hour, 0, time.Hour, math.MaxInt64} {
		if _, ok := p.AllowRetry(1, elapsed); !ok {
			t.Errorf("AllowRetry(1, %v) refused; elapsed must not matter", elapsed)
		}
	}
}

func TestExponentialBackoffConcurrentUse(t *testing.T) {
	p := &retry.ExponentialBackoff{BaseSleep: time.Millisecond, MaxSleep: 50 * time.Millisecond, MaxRetries: 10}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				retryCount := i % 12
				sleep, ok := p.AllowRetry(retryCount, 0)
				if ok != (retryCount < 10) || (ok && (sleep < p.BaseSleep || sleep > p.MaxSleep)) {
					errs <- "out-of-contract answer under concurrent use"
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Error(msg)
	}
}
