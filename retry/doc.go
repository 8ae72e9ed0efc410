// Package retry decides whether a failed ZooKeeper operation may run again and
// how long to wait first. It is the Go counterpart of Apache Curator's
// org.apache.curator.retry package and of the error test in its RetryLoop.
//
// # Policies
//
// A [Policy] is asked after each retryable failure. It receives the number of
// retries already made (0 before the first retry) and the time elapsed since
// the operation first started (in the framework's retry loop, from before the
// first attempt, its wait for a connection included, as in Curator's
// RetryLoop), and answers with a sleep and a yes or no. The
// policies are plain structs, safe for concurrent use, and map one to one onto
// Curator's classes:
//
//	Curator 5.x                                    zkcurator
//	ExponentialBackoffRetry(base, n)               ExponentialBackoff{BaseSleep: base, MaxRetries: n}
//	ExponentialBackoffRetry(base, n, max)          ExponentialBackoff{BaseSleep: base, MaxRetries: n, MaxSleep: max}
//	BoundedExponentialBackoffRetry(base, max, n)   ExponentialBackoff{BaseSleep: base, MaxSleep: max, MaxRetries: n}
//	RetryNTimes(n, sleep)                          NTimes{N: n, Sleep: sleep}
//	RetryOneTime(sleep)                            OneTime{Sleep: sleep}
//	RetryUntilElapsed(max, sleep)                  UntilElapsed{MaxElapsed: max, Sleep: sleep}
//	RetryForever(interval)                         Forever{Interval: interval}
//
// The formulas are Curator's: [ExponentialBackoff] sleeps
// BaseSleep × max(1, random(2^(retryCount+1))) capped at MaxSleep, with
// MaxRetries pinned to 29; [UntilElapsed] compares the elapsed time measured
// before the sleep. One difference is deliberate: AllowRetry never sleeps. It
// returns the sleep so that the caller can wait on a context, and a refusal
// costs no sleep (Curator's RetryUntilElapsed sleeps before it refuses).
//
// # Validation
//
// Every policy has a Validate method that rejects values that make no sense,
// such as a negative sleep, a Forever with a zero interval or a MaxSleep below
// BaseSleep, with an error that wraps [ErrInvalidPolicy] and names the field and
// its value. [Validate] applies it to any Policy and also rejects nil; the
// framework's NewClient calls it. A policy that fails validation allows no
// retry, so a mistake can never turn into a busy loop.
//
// # Retryable errors
//
// [IsRetryable] reports whether an error is one that Curator retries:
// connection loss, session moved and session expired, as go-zookeeper reports
// them, seen through any wrapping. Errors from a cancelled or expired context
// are never retryable.
//
// # cenkalti/backoff
//
// [NewBackOff] turns any Policy into a backoff.BackOff from
// github.com/cenkalti/backoff/v4, so that backoff.Retry and backoff.WithContext
// can drive an operation with Curator's policies.
package retry
