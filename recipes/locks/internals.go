package locks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
)

// errVanished marks an attempt whose own node disappeared while it waited.
// It is retried with a new node as long as the client's retry policy allows.
var errVanished = errors.New("lock node vanished while waiting (its session expired or it was deleted)")

// vanished reports that the contender node at path is gone.
func vanished(path string) error { return fmt.Errorf("%w: %s", errVanished, path) }

// lockInternals is the engine behind every lock in this package, Curator's
// LockInternals: the driver creates our node; we list the contenders, ask the
// driver whether we hold the lock and otherwise watch the one node it names.
type lockInternals struct {
	client    *framework.Client
	driver    LockInternalsDriver
	basePath  string
	lockName  string
	maxLeases int
}

// lockNode is an attempt's contender node, the release signals it watched
// that may still be armed, and whether any waiter can be watching its own
// (see handoff.go).
type lockNode struct {
	path      string
	signals   []string
	unwatched bool // no waiter can be watching our release signal
}

// attempt creates a contender node and waits until it holds the lock. wait < 0
// waits as long as ctx allows; otherwise the attempt gives up after wait and
// reports held == false. On any outcome other than a hold, our node is gone
// (or being deleted in the background) when attempt returns.
func (li *lockInternals) attempt(ctx context.Context, data []byte, wait time.Duration) (n lockNode, held bool, err error) {
	var timeout <-chan time.Time
	if wait >= 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	bo := backoff.WithContext(retry.NewBackOff(li.client.RetryPolicy()), ctx)
	for {
		n, held, err = li.attemptOnce(ctx, data, timeout)
		if !errors.Is(err, errVanished) {
			return n, held, err
		}
		sleep := bo.NextBackOff()
		if sleep == backoff.Stop {
			return lockNode{}, false, fmt.Errorf("locks: acquire %s: %w: %w", li.basePath, ErrLockLost, err)
		}
		li.client.Logger().Debug("lock node vanished; retrying with a new node")
		select {
		case <-time.After(sleep):
		case <-ctx.Done():
			return lockNode{}, false, ctx.Err()
		}
	}
}

func (li *lockInternals) attemptOnce(ctx context.Context, data []byte, timeout <-chan time.Time) (lockNode, bool, error) {
	ourPath, err := li.driver.CreatesTheLock(ctx, li.client, framework.JoinPath(li.basePath, li.lockName), data)
	if err != nil {
		return lockNode{}, false, fmt.Errorf("locks: create lock node under %s: %w", li.basePath, err)
	}
	n := lockNode{path: ourPath}
	held, err := li.waitToHold(ctx, &n, timeout)
	if err != nil || !held {
		li.abandon(ctx, n)
	}
	return n, held, err
}

// contenders lists the lock path's children that carry the lock name, in lock order.
func (li *lockInternals) contenders(ctx context.Context) ([]string, error) {
	children, _, err := li.client.Children(ctx, li.basePath)
	if errors.Is(err, zk.ErrNoNode) {
		return []string{}, nil // no lock node was ever created, or the container was reaped
	}
	if err != nil {
		return nil, fmt.Errorf("locks: list %s: %w", li.basePath, err)
	}
	c := SortedContenders(children, li.lockName, li.driver.FixForSorting)
	if c == nil {
		c = []string{}
	}
	return c, nil
}

// participants returns the contenders' full paths in lock order.
func (li *lockInternals) participants(ctx context.Context) ([]string, error) {
	names, err := li.contenders(ctx)
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = framework.JoinPath(li.basePath, n)
	}
	return paths, nil
}

// release ends a hold (held) or abandons an attempt: the driver's Releaser
// when it has one; otherwise our node is deleted, guaranteed, so a failure
// here is retried in the background. For Holding drivers the holder node goes
// in the same transaction as our node whenever it is ours; for drivers that
// signal releases, the signals go in the transaction that deletes our node.
func (li *lockInternals) release(ctx context.Context, n lockNode, held bool) error {
	if r, ok := li.driver.(Releaser); ok {
		return r.ReleasesTheLock(ctx, li.client, n.path)
	}
	if li.holderName() != "" && (held || li.ownsHolder(ctx, n.path)) {
		return li.releaseHolder(ctx, n.path)
	}
	if li.signalsRelease() && ((held && !n.unwatched) || len(n.signals) > 0) {
		// Detached like abandon: a caller whose ctx is done must not leave
		// the signal watches it set armed for the rest of the session.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), li.client.SessionTimeout())
		signalled := li.deleteSignalling(sctx, n, held)
		cancel()
		if signalled {
			return nil
		}
	}
	return li.client.Delete(ctx, n.path, framework.Guaranteed(), framework.Quietly())
}

// abandon deletes the node of an attempt that did not end in a hold, with a
// context of its own so that a cancelled caller still leaves no node behind.
func (li *lockInternals) abandon(ctx context.Context, n lockNode) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), li.client.SessionTimeout())
	defer cancel()
	if err := li.release(ctx, n, false); err != nil {
		li.client.Logger().Debug("deleting an abandoned lock node failed; retrying in the background")
	}
}
