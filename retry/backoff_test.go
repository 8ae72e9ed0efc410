package retry_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/retry"
)

// call is one question a recordingPolicy was asked.
type call struct {
	retryCount int
	elapsed    time.Duration
	sleep      time.Duration
	ok         bool
}

// recordingPolicy records every question put to the policy it wraps.
type recordingPolicy struct {
	inner retry.Policy
	mu    sync.Mutex
	calls []call
}

func (p *recordingPolicy) AllowRetry(retryCount int, elapsed time.Duration) (time.Duration, bool) {
	sleep, ok := p.inner.AllowRetry(retryCount, elapsed)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, call{retryCount, elapsed, sleep, ok})
	return sleep, ok
}

func (p *recordingPolicy) recorded() []call {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]call(nil), p.calls...)
}

// failing returns an operation that fails with err on every attempt and counts them.
func failing(err error, attempts *int) backoff.Operation {
	return func() error {
		*attempts++
		return err
	}
}

func TestNewBackOffRetryCountsAttempts(t *testing.T) {
	for _, tc := range []struct {
		policy   retry.Policy
		attempts int
	}{
		{retry.NTimes{N: 0, Sleep: time.Millisecond}, 1},
		{retry.OneTime{Sleep: time.Millisecond}, 2},
		{retry.NTimes{N: 3, Sleep: time.Millisecond}, 4},
		{retry.ExponentialBackoff{BaseSleep: time.Millisecond, MaxSleep: 2 * time.Millisecond, MaxRetries: 4}, 5},
	} {
		attempts := 0
		err := backoff.Retry(failing(zk.ErrConnectionClosed, &attempts), retry.NewBackOff(tc.policy))
		if !errors.Is(err, zk.ErrConnectionClosed) {
			t.Errorf("%#v: Retry = %v, want the operation's last error", tc.policy, err)
		}
		if attempts != tc.attempts {
			t.Errorf("%#v: %d attempts, want %d", tc.policy, attempts, tc.attempts)
		}
	}
}

func TestNewBackOffStopsRetryingOnSuccess(t *testing.T) {
	attempts := 0
	err := backoff.Retry(func() error {
		attempts++
		if attempts < 3 {
			return zk.ErrSessionMoved
		}
		return nil
	}, retry.NewBackOff(retry.NTimes{N: 10, Sleep: time.Millisecond}))
	if err != nil || attempts != 3 {
		t.Errorf("Retry = %v after %d attempts, want nil after 3", err, attempts)
	}
}

func TestNewBackOffPassesRetryCountAndElapsed(t *testing.T) {
	p := &recordingPolicy{inner: retry.UntilElapsed{MaxElapsed: 30 * time.Millisecond, Sleep: 2 * time.Millisecond}}
	attempts := 0
	start := time.Now()
	err := backoff.Retry(failing(zk.ErrNoServer, &attempts), retry.NewBackOff(p))
	took := time.Since(start)
	if !errors.Is(err, zk.ErrNoServer) {
		t.Fatalf("Retry = %v, want zk.ErrNoServer", err)
	}
	calls := p.recorded()
	if len(calls) != attempts || attempts < 2 {
		t.Fatalf("%d attempts and %d policy calls; want one call per failed attempt and at least one retry", attempts, len(calls))
	}
	for i, c := range calls {
		if c.retryCount != i {
			t.Errorf("call %d: retryCount %d, want %d", i, c.retryCount, i)
		}
		if i > 0 && c.elapsed < calls[i-1].elapsed+calls[i-1].sleep {
			t.Errorf("call %d: elapsed %v, want at least %v (previous elapsed plus its sleep)", i, c.elapsed, calls[i-1].elapsed+calls[i-1].sleep)
		}
		if last := i == len(calls)-1; c.ok == last {
			t.Errorf("call %d of %d: ok = %t", i, len(calls), c.ok)
		}
	}
	last := calls[len(calls)-1]
	if last.elapsed < 30*time.Millisecond || last.elapsed > took {
		t.Errorf("refusing call saw elapsed %v, want within [30ms, %v]", last.elapsed, took)
	}
}

func TestNewBackOffElapsedStartsAtReset(t *testing.T) {
	p := &recordingPolicy{inner: retry.Forever{Interval: time.Millisecond}}
	b := retry.NewBackOff(p)
	created := time.Now()
	// Let time pass: the elapsed time itself is under test, nothing is awaited.
	time.Sleep(20 * time.Millisecond)
	atLeast := time.Since(created)
	b.NextBackOff()

	resetAt := time.Now()
	b.Reset()
	b.NextBackOff()
	atMost := time.Since(resetAt)

	calls := p.recorded()
	if len(calls) != 2 {
		t.Fatalf("%d policy calls, want 2", len(calls))
	}
	if e := calls[0].elapsed; e < atLeast {
		t.Errorf("elapsed %v, want at least the %v since NewBackOff", e, atLeast)
	}
	if e := calls[1].elapsed; e < 0 || e > atMost {
		t.Errorf("elapsed after Reset %v, want within [0, %v]", e, atMost)
	}
	if calls[0].retryCount != 0 || calls[1].retryCount != 0 {
		t.Errorf("retryCounts %d and %d, want 0 on a new BackOff and 0 after Reset", calls[0].retryCount, calls[1].retryCount)
	}
}

func TestNewBackOffDirect(t *testing.T) {
	b := retry.NewBackOff(retry.NTimes{N: 2, Sleep: 5 * time.Millisecond})
	want := []time.Duration{5 * time.Millisecond, 5 * time.Millisecond, backoff.Stop, backoff.Stop}
	for i, w := range want {
		if got := b.NextBackOff(); got != w {
			t.Errorf("NextBackOff #%d = %v, want %v", i, got, w)
		}
	}
	b.Reset()
	if got := b.NextBackOff(); got != 5*time.Millisecond {
		t.Errorf("NextBackOff after Reset = %v, want 5ms", got)
	}
}

func TestNewBackOffNilOrInvalidPolicyStops(t *testing.T) {
	for _, p := range []retry.Policy{nil, (*retry.NTimes)(nil), retry.Forever{}, failingPolicy{err: errors.New("no")}} {
		attempts := 0
		err := backoff.Retry(failing(zk.ErrConnectionClosed, &attempts), retry.NewBackOff(p))
		if attempts != 1 || !errors.Is(err, zk.ErrConnectionClosed) {
			t.Errorf("policy %#v: %d attempts, err %v; want 1 attempt and the operation's error", p, attempts, err)
		}
	}
}

func TestNewBackOffClampsNegativeSleep(t *testing.T) {
	negative := policyFunc(func(int, time.Duration) (time.Duration, bool) { return backoff.Stop, true })
	if got := retry.NewBackOff(negative).NextBackOff(); got != 0 {
		t.Errorf("NextBackOff with a policy sleeping %v = %v, want 0 (not backoff.Stop)", backoff.Stop, got)
	}
}

func TestNewBackOffWithContextAndPermanentErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	attempts := 0
	err := backoff.Retry(func() error {
		attempts++
		if attempts == 3 {
			cancel()
		}
		return zk.ErrConnectionClosed
	}, backoff.WithContext(retry.NewBackOff(retry.Forever{Interval: time.Millisecond}), ctx))
	if !errors.Is(err, context.Canceled) || attempts != 3 {
		t.Errorf("Retry = %v after %d attempts, want context.Canceled after 3", err, attempts)
	}

	attempts = 0
	err = backoff.Retry(func() error {
		attempts++
		err := fmt.Errorf("get /x: %w", zk.ErrNoNode)
		if !retry.IsRetryable(err) {
			return backoff.Permanent(err)
		}
		return err
	}, retry.NewBackOff(retry.Forever{Interval: time.Millisecond}))
	if !errors.Is(err, zk.ErrNoNode) || attempts != 1 {
		t.Errorf("Retry = %v after %d attempts, want zk.ErrNoNode after 1", err, attempts)
	}
}

func TestNewBackOffConcurrentUse(t *testing.T) {
	b := retry.NewBackOff(retry.NTimes{N: 100, Sleep: time.Microsecond})
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if b.NextBackOff() != backoff.Stop {
					allowed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if got := allowed.Load(); got != 100 {
		t.Errorf("%d retries allowed across goroutines, want exactly N = 100", got)
	}
}
