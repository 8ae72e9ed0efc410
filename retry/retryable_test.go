package retry_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/retry"
)

func TestIsRetryable(t *testing.T) {
	retryable := []error{zk.ErrConnectionClosed, zk.ErrNoServer, zk.ErrSessionMoved, zk.ErrSessionExpired}
	for _, base := range retryable {
		for name, err := range map[string]error{
			"bare":          base,
			"wrapped":       fmt.Errorf("create /a/b: %w", base),
			"wrapped twice": fmt.Errorf("lock: %w", fmt.Errorf("create /a/b: %w", base)),
			"joined":        errors.Join(errors.New("cleanup failed"), base),
			"joined, wrapped": fmt.Errorf("op: %w",
				errors.Join(zk.ErrNoNode, fmt.Errorf("inner: %w", base))),
			"two %w verbs": fmt.Errorf("%w after %w", base, zk.ErrBadVersion),
		} {
			if !retry.IsRetryable(err) {
				t.Errorf("IsRetryable(%s %v) = false, want true", name, base)
			}
		}
	}
}

func TestIsRetryableRejectsOtherErrors(t *testing.T) {
	for _, err := range []error{
		nil,
		zk.ErrNoNode,
		zk.ErrNodeExists,
		zk.ErrBadVersion,
		zk.ErrNotEmpty,
		zk.ErrNoAuth,
		zk.ErrClosing, // the client itself was closed
		zk.ErrInvalidPath,
		errors.New(zk.ErrConnectionClosed.Error()), // same text, different error
		fmt.Errorf("create: %w", zk.ErrNodeExists),
		errors.Join(zk.ErrNoNode, zk.ErrBadVersion),
		context.Canceled,
		context.DeadlineExceeded,
		fmt.Errorf("acquire: %w", context.DeadlineExceeded),
	} {
		if retry.IsRetryable(err) {
			t.Errorf("IsRetryable(%v) = true, want false", err)
		}
	}
}

func TestIsRetryableContextWins(t *testing.T) {
	for _, err := range []error{
		errors.Join(context.Canceled, zk.ErrConnectionClosed),
		errors.Join(zk.ErrSessionExpired, fmt.Errorf("wait: %w", context.DeadlineExceeded)),
		fmt.Errorf("%w: %w", context.Canceled, zk.ErrNoServer),
	} {
		if retry.IsRetryable(err) {
			t.Errorf("IsRetryable(%v) = true; a cancelled or expired context must stop retries", err)
		}
	}
}
