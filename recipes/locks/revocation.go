package locks

import (
	"context"
	"errors"
	"path"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
)

// RevokeMessage is the data Curator writes to a lock node to ask its holder
// to release it.
const RevokeMessage = "__REVOKE__"

// contenderLockNames are the lock names that the contender nodes of
// Curator's recipes carry after their protection prefix: the mutex (and
// LeaderSelector), the read/write lock, the semaphore's leases and
// LeaderLatch.
var contenderLockNames = [...]string{lockNameMutex, lockNameRead, lockNameWrite, leaseName, "latch-"}

// isContenderName reports whether name is that of a contender node of
// Curator's recipes (ours and Java's): a protected name whose rest is a lock
// name and a sequence number, or the unfair driver's random suffix.
func isContenderName(name string) bool {
	if !protection.IsProtected(name) {
		return false
	}
	rest := protection.Strip(name)
	for _, lockName := range contenderLockNames {
		if suffix, ok := strings.CutPrefix(rest, lockName); ok {
			return isSequenceNumber(suffix) || lockName == lockNameMutex && isUnfairSuffix(suffix)
		}
	}
	return false
}

// isUnfairSuffix reports whether s is the random suffix of an
// UnfairLockInternalsDriver node.
func isUnfairSuffix(s string) bool {
	digits, ok := strings.CutPrefix(s, unfairKeyPrefix)
	return ok && digits != "" && strings.Trim(digits, "0123456789") == ""
}

// isContenderKind reports whether a node named name, with this Stat, can be a
// contender's: one without children that is ephemeral or, named as a mutex
// contender, persistent. ZooKeeper reports the owner of a TTL node (and of a
// container) as 0, like a persistent node's, so a persistent "lock-" node is
// taken for one of PersistentTTLLockInternalsDriver, the only driver of
// non-ephemeral contenders; the other lock names are ephemeral only.
func isContenderKind(name string, stat *zk.Stat) bool {
	switch {
	case stat.NumChildren > 0:
		return false
	case stat.EphemeralOwner != 0:
		return true
	}
	seq, ok := strings.CutPrefix(protection.Strip(name), lockNameMutex)
	return ok && isSequenceNumber(seq)
}

// revokeTries bounds AttemptRevoke's writes that lose to a concurrent
// change of the node's data (the PersistentTTL driver refreshes it).
const revokeTries = 3

// AttemptRevoke asks the holder of the lock node at nodePath to release it by
// setting the node's data to RevokeMessage, as Curator's Revoker does. Holders
// that called MakeRevocable (in Go or in Java) are told; a missing node is
// not an error.
//
// Only a contender's node is written: a node without children named as the
// contenders of Curator's recipes are ("_c_<uuid>-" and "lock-", "__READ__",
// "__WRIT__", "lease-" or "latch-" and a sequence number, or the unfair
// driver's random suffix), ephemeral or, for a "lock-" node, persistent: the
// PersistentTTL driver's TTL nodes, which ZooKeeper reports as it does
// persistent ones. Anything else (a lock path itself, a persistent node of
// another name, a foreign contender's node, the unfair driver's holder node)
// is refused with an error that names the path and matches ErrNotContender,
// and its data is left untouched. A name that cannot be a contender's is
// refused before any request.
func AttemptRevoke(ctx context.Context, c *framework.Client, nodePath string) error {
	switch {
	case c == nil:
		return errorf("%w: AttemptRevoke %q: nil client", ErrInvalidArgument, nodePath)
	case ctx == nil:
		return errorf("%w: AttemptRevoke %q: nil context", ErrInvalidArgument, nodePath)
	}
	if err := framework.ValidatePath(nodePath); err != nil {
		return errorf("%w: AttemptRevoke: %w", ErrInvalidArgument, err)
	}
	if !isContenderName(path.Base(nodePath)) {
		return errorf("%w: %s: its name is not that of a lock, lease or leader contender", ErrNotContender, nodePath)
	}
	for try := 1; ; try++ {
		_, stat, err := c.GetData(ctx, nodePath)
		switch {
		case errors.Is(err, zk.ErrNoNode):
			return nil
		case err != nil:
			return errorf("revoke %s: %w", nodePath, err)
		case !isContenderKind(path.Base(nodePath), stat):
			return errorf("%w: %s: a node with children, or a persistent node not named as the PersistentTTL driver's, is no contender's", ErrNotContender, nodePath)
		}
		_, err = c.SetData(ctx, nodePath, []byte(RevokeMessage), stat.Version)
		switch {
		case err == nil, errors.Is(err, zk.ErrNoNode):
			return nil
		case !errors.Is(err, zk.ErrBadVersion) || try == revokeTries:
			return errorf("revoke %s: %w", nodePath, err)
		}
	}
}

// MutexHolder returns the full path of the node that holds the
// InterProcessMutex at lockPath now (also a LeaderSelector's leader): the
// first contender in lock order or, while the unfair driver's holder node
// stands, the node it names. It returns "" and a nil error when no one
// holds. The holder may be a foreign contender (Kazoo's), which
// AttemptRevoke refuses.
func MutexHolder(ctx context.Context, c *framework.Client, lockPath string) (string, error) {
	switch {
	case c == nil:
		return "", errorf("%w: MutexHolder %q: nil client", ErrInvalidArgument, lockPath)
	case ctx == nil:
		return "", errorf("%w: MutexHolder %q: nil context", ErrInvalidArgument, lockPath)
	}
	if err := validateLockPath(lockPath); err != nil {
		return "", err
	}
	li := newLockInternals(c, StandardLockInternalsDriver{}, lockPath, lockNameMutex, 1)
	for range holderTries {
		names, err := li.contenders(ctx)
		switch {
		case err != nil:
			return "", err
		case len(names) == 0:
			return "", nil
		case names[0] != UnfairHolderNodeName:
			return framework.JoinPath(lockPath, names[0]), nil
		}
		data, _, err := c.GetData(ctx, framework.JoinPath(lockPath, UnfairHolderNodeName))
		switch {
		case err == nil:
			return framework.JoinPath(lockPath, string(data)), nil
		case !errors.Is(err, zk.ErrNoNode): // else released meanwhile: list again
			return "", errorf("read the holder of %s: %w", lockPath, err)
		}
	}
	return "", errorf("the holder of %s changed %d times while it was read", lockPath, holderTries)
}

// watchRevocation starts the hold's one revocation watcher, unless it runs
// already. When the hold's node data becomes RevokeMessage before the hold
// ends, the watcher calls, once and on a goroutine of its own, the callback
// that current returns then (nil: none), so a callback replaced or removed
// during the hold is never called. The callback may release the lock. The
// caller holds the handle's mutex.
func (h *hold) watchRevocation(current func() func()) {
	if h.revocation {
		return
	}
	h.revocation = true
	h.watchers.Add(1)
	go func() {
		var fn func()
		if h.awaitRevocation() {
			fn = current()
		}
		h.watchers.Done()
		if fn != nil {
			fn()
		}
	}()
}

// awaitRevocation reports whether the hold's node data became RevokeMessage
// before the hold ended or the client closed. It keeps one data watch on the
// node and sends a request only when that watch fires, or, after a failed
// request, once a quarter of the session timeout has passed.
func (h *hold) awaitRevocation() bool {
	c := h.li.client
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		defer cancel()
		select {
		case <-h.done:
		case <-c.Done():
		case <-ctx.Done():
		}
	}()
	for {
		data, _, events, err := c.GetDataW(ctx, h.node.path)
		var again time.Duration
		switch {
		case ctx.Err() != nil, errors.Is(err, framework.ErrClosed):
			return false
		case errors.Is(err, zk.ErrNoNode):
			h.markLost("lock node deleted")
			return false
		case err != nil:
			c.Logger().Debug("revocation watch failed; retrying", zap.String("path", h.node.path), zap.Error(err))
			again = c.SessionTimeout() / 4
		case string(data) == RevokeMessage:
			return true
		}
		if !awaitEvent(ctx, events, again) {
			return false
		}
	}
}

// awaitEvent waits for events to fire or, when again is positive, for again
// to pass (events is nil then), and reports false when ctx ends first.
func awaitEvent(ctx context.Context, events <-chan zk.Event, again time.Duration) bool {
	var retry <-chan time.Time
	if again > 0 {
		t := time.NewTimer(again)
		defer t.Stop()
		retry = t.C
	}
	select {
	case <-events:
	case <-retry:
	case <-ctx.Done():
		return false
	}
	return true
}
