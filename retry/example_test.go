package retry_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/retry"
)

// Curator's ExponentialBackoffRetry(100, 3, 1000): the first retry sleeps
// BaseSleep, later ones a random multiple of it, never more than MaxSleep.
func ExampleExponentialBackoff() {
	p := retry.ExponentialBackoff{BaseSleep: 100 * time.Millisecond, MaxSleep: time.Second, MaxRetries: 3}
	for retryCount := 0; ; retryCount++ {
		sleep, ok := p.AllowRetry(retryCount, 0)
		if !ok {
			fmt.Printf("retry %d: refused\n", retryCount)
			break
		}
		limit := min(p.BaseSleep*time.Duration(1<<(retryCount+1)-1), p.MaxSleep)
		fmt.Printf("retry %d: %v <= sleep <= %v: %t\n", retryCount, p.BaseSleep, limit, sleep >= p.BaseSleep && sleep <= limit)
	}
	// Output:
	// retry 0: 100ms <= sleep <= 100ms: true
	// retry 1: 100ms <= sleep <= 300ms: true
	// retry 2: 100ms <= sleep <= 700ms: true
	// retry 3: refused
}

// backoff.Retry with one of Curator's policies: retryable ZooKeeper errors are
// retried, anything else is made permanent.
func ExampleNewBackOff() {
	attempts := 0
	op := func() error {
		attempts++
		err := fmt.Errorf("create /app/lock: %w", zk.ErrConnectionClosed)
		if !retry.IsRetryable(err) {
			return backoff.Permanent(err)
		}
		return err
	}
	err := backoff.Retry(op, retry.NewBackOff(retry.NTimes{N: 2, Sleep: time.Millisecond}))
	fmt.Println("attempts:", attempts)
	fmt.Println("error:", err)
	// Output:
	// attempts: 3
	// error: create /app/lock: zk: connection closed
}

func ExampleIsRetryable() {
	fmt.Println(retry.IsRetryable(fmt.Errorf("get /a: %w", zk.ErrSessionExpired)))
	fmt.Println(retry.IsRetryable(fmt.Errorf("get /a: %w", zk.ErrNoNode)))
	// Output:
	// true
	// false
}

func ExampleValidate() {
	err := retry.Validate(retry.Forever{})
	fmt.Println(err)
	fmt.Println(errors.Is(err, retry.ErrInvalidPolicy))
	// Output:
	// retry: invalid policy: Forever.Interval is 0s, must be positive
	// true
}
