package locks

import (
	"context"
	"encoding/binary"
	"errors"
	"path"
	"slices"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
)

// awaitGrant waits until the leases path has no more children than the
// limit, with our node p among them and owned by the client's current
// session, while lock, the semaphore's lock, is still held for certain: the
// lease is granted. The lock is what makes counting the children safe: it
// serializes acquirers, and the listing of its holder's session shows every
// lease granted before. A holder of a lock it may have lost (its session given
// up, say) could count on a server that has not yet seen another acquirer's
// lease, so it starts again instead. It reports false when tw's deadline
// passes, and
// wraps errVanished when our node is gone or belongs to a session the client
// no longer has (see sessionGone). A waiter
// wakes when the children change, when the shared count changes and on every
// connection state change (go-zookeeper fires no watch on a plain disconnect).
func (s *InterProcessSemaphoreV2) awaitGrant(tw *timedWait, p string, owner framework.Session, lock *InterProcessMutex) (bool, error) {
	ctx := tw.ctx
	wake := make(chan struct{}, 1)
	stop := s.client.Listen(func(framework.ConnectionState) {
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	defer stop()

	name := path.Base(p)
	limit, readLimit := s.maxLeases, s.countPath != ""
	var countEvents <-chan zk.Event
	for {
		children, _, childEvents, err := s.client.ChildrenW(ctx, s.leasesPath)
		switch {
		case errors.Is(err, zk.ErrNoNode):
			return false, vanished(p)
		case err != nil:
			return false, errorf("semaphore %s: %w", s.path, err)
		case !slices.Contains(children, name):
			return false, vanished(p)
		case !owner.IsCurrent():
			return false, sessionGone(p, owner)
		}
		if readLimit {
			if limit, countEvents, err = s.sharedCount(ctx); err != nil {
				return false, err
			}
			readLimit = false
		}
		if _, ok := lock.certainNode(); !ok {
			return false, errorf("%w: %s: the semaphore's lock is no longer held for certain", errVanished, p)
		}
		if len(children) <= limit {
			return true, nil
		}
		select {
		case <-lock.Lost():
		case <-childEvents:
		case <-countEvents:
			readLimit = true
		case <-wake:
			readLimit = s.countPath != ""
		case <-tw.over:
			return false, nil
		case <-ctx.Done():
			return false, tw.ctxErr()
		}
	}
}

// sharedCount reads the limit from the shared count node and leaves a watch on
// it, creating the node with maxLeases as its seed when it does not exist.
func (s *InterProcessSemaphoreV2) sharedCount(ctx context.Context) (int, <-chan zk.Event, error) {
	data, _, events, err := s.client.GetDataW(ctx, s.countPath)
	if errors.Is(err, zk.ErrNoNode) {
		_, err = s.client.Create(ctx, s.countPath, encodeCount(s.maxLeases), framework.CreatingParentContainersIfNeeded())
		if err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return 0, nil, errorf("semaphore %s: create shared count: %w", s.path, err)
		}
		data, _, events, err = s.client.GetDataW(ctx, s.countPath)
	}
	if err != nil {
		return 0, nil, errorf("semaphore %s: read shared count: %w", s.path, err)
	}
	n, err := decodeCount(data)
	if err != nil {
		return 0, nil, errorf("semaphore %s: shared count %s: %w", s.path, s.countPath, err)
	}
	return n, events, nil
}

// encodeCount and decodeCount use Curator's SharedCount encoding: a 4-byte
// big-endian two's complement integer.
func encodeCount(n int) []byte {
	return binary.BigEndian.AppendUint32(nil, uint32(int32(n)))
}

func decodeCount(data []byte) (int, error) {
	if len(data) != 4 {
		return 0, errorf("holds %d bytes, want a 4-byte big-endian count", len(data))
	}
	return int(int32(binary.BigEndian.Uint32(data))), nil
}
