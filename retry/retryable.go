package retry

import (
	"context"
	"errors"

	"github.com/go-zookeeper/zk"
)

// retryable lists go-zookeeper's errors for the result codes that Curator
// retries (RetryPolicy.allowRetry(Throwable) in Curator 5.x).
var retryable = [...]error{
	// CONNECTIONLOSS: the connection broke with the request in flight, so its
	// outcome is unknown. go-zookeeper has no request timeout of its own: a
	// request on a silent connection fails with ErrConnectionClosed once the
	// receive deadline passes, which makes this also the Go client's form of
	// OPERATIONTIMEOUT.
	zk.ErrConnectionClosed,
	// CONNECTIONLOSS before sending: every server was tried without success.
	zk.ErrNoServer,
	// SESSIONMOVED.
	zk.ErrSessionMoved,
	// SESSIONEXPIRED.
	zk.ErrSessionExpired,
}

// IsRetryable reports whether err, or any error it wraps (through %w or
// errors.Join), is one that Curator retries: connection loss
// (zk.ErrConnectionClosed, zk.ErrNoServer), session moved (zk.ErrSessionMoved)
// or session expired (zk.ErrSessionExpired). An error that also wraps
// context.Canceled or context.DeadlineExceeded is never retryable: the caller
// has given up. go-zookeeper v1.0.4 has no distinct operation timeout error; a
// stalled request fails as a connection loss.
func IsRetryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	for _, target := range retryable {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}
