package interop

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The commands a helper understands, one method per verb of its line
// protocol (helper.go sends them and matches their events).

// Mutex defines handle as a Curator InterProcessMutex on path.
func (h *Helper) Mutex(ctx context.Context, handle, path string) error {
	_, err := h.Do(ctx, KindOK, "mutex", handle, path)
	return err
}

// RWLock defines handle as a Curator InterProcessReadWriteLock on path; its sides
// are the targets handle+"/read" and handle+"/write".
func (h *Helper) RWLock(ctx context.Context, handle, path string) error {
	_, err := h.Do(ctx, KindOK, "rwlock", handle, path)
	return err
}

// Semaphore defines handle as a Curator InterProcessSemaphoreV2 on path.
func (h *Helper) Semaphore(ctx context.Context, handle, path string, maxLeases int) error {
	_, err := h.Do(ctx, KindOK, "semaphore", handle, path, strconv.Itoa(maxLeases))
	return err
}

// AcquireAsync starts an acquire of target that gives up after timeout; await
// KindAcquired or KindTimeout on the returned Call.
func (h *Helper) AcquireAsync(target string, timeout time.Duration) (*Call, error) {
	return h.Send("acquire", target, millis(timeout))
}

// Acquire acquires target, waiting at most timeout in Curator, and returns the
// ACQUIRED event (its Field(1) is the lock or lease node). A timeout in Curator
// is ErrNotAcquired.
func (h *Helper) Acquire(ctx context.Context, target string, timeout time.Duration) (Event, error) {
	c, err := h.AcquireAsync(target, timeout)
	if err != nil {
		return Event{}, err
	}
	return c.Acquired(ctx)
}

// Release releases target (a semaphore returns its newest lease) and returns the
// RELEASED event, stamped right before the release began.
func (h *Helper) Release(ctx context.Context, target string) (Event, error) {
	return h.Do(ctx, KindReleased, "release", target)
}

// Hold starts acquiring target (waiting at most timeout), holding it for hold and
// releasing it; the Call gets KindAcquired then KindReleased, or KindTimeout.
func (h *Helper) Hold(target string, hold, timeout time.Duration) (*Call, error) {
	return h.Send("hold", target, millis(hold), millis(timeout))
}

// Count starts rounds rounds of: acquire target, read counterPath, write it back
// plus one without a version, release. Each round gives a KindRound event, the
// end KindCounted.
func (h *Helper) Count(target, counterPath string, rounds int, timeout time.Duration) (*Call, error) {
	return h.Send("count", target, counterPath, strconv.Itoa(rounds), millis(timeout))
}

// Participants returns Curator's getParticipantNodes for target: full node paths,
// the holder first.
func (h *Helper) Participants(ctx context.Context, target string) ([]string, error) {
	e, err := h.Do(ctx, KindParticipants, "participants", target)
	if err != nil {
		return nil, err
	}
	if e.Field(1) == "-" {
		return nil, nil
	}
	return strings.Split(e.Field(1), ","), nil
}

// IsProtectedZNode returns Curator's ProtectedUtils.isProtectedZNode for each name.
func (h *Helper) IsProtectedZNode(ctx context.Context, names ...string) ([]bool, error) {
	if len(names) == 0 {
		return nil, nil
	}
	e, err := h.Do(ctx, KindProtected, "protected", names...)
	if err != nil {
		return nil, err
	}
	if len(e.Fields) != len(names) {
		return nil, fmt.Errorf("interop: %s: %d answers for %d names: %v", h.name, len(e.Fields), len(names), e)
	}
	out := make([]bool, len(names))
	for i, f := range e.Fields {
		out[i] = f == "true"
	}
	return out, nil
}

// MakeRevocable makes target revocable in Curator. When a revocation request
// arrives the returned Call gets KindRevokeRequested and then, once the handle
// released the lock, KindReleased.
func (h *Helper) MakeRevocable(ctx context.Context, target string) (*Call, error) {
	c, err := h.Send("revocable", target)
	if err != nil {
		return nil, err
	}
	if _, err := c.Await(ctx, KindOK); err != nil {
		return nil, err
	}
	return c, nil
}

// AttemptRevoke runs Curator's Revoker.attemptRevoke on a lock node path.
func (h *Helper) AttemptRevoke(ctx context.Context, nodePath string) error {
	_, err := h.Do(ctx, KindRevokeSent, "revoke", nodePath)
	return err
}

// DoubleBarrier defines handle as a member of a Curator
// DistributedDoubleBarrier on path that opens at memberQty members.
func (h *Helper) DoubleBarrier(ctx context.Context, handle, path string, memberQty int) error {
	_, err := h.Do(ctx, KindOK, "barriers.double", handle, path, strconv.Itoa(memberQty))
	return err
}

// EnterBarrier starts handle's enter, which gives up after timeout; see
// Call.Passed.
func (h *Helper) EnterBarrier(handle string, timeout time.Duration) (*Call, error) {
	return h.Send("barriers.enter", handle, millis(timeout))
}

// LeaveBarrier starts handle's leave, which gives up after timeout; see
// Call.Passed.
func (h *Helper) LeaveBarrier(handle string, timeout time.Duration) (*Call, error) {
	return h.Send("barriers.leave", handle, millis(timeout))
}

// Passed waits for a barrier call's event of kind (KindEntered or KindLeft),
// stamped when the call returned, and returns an error unless Curator
// reported it passed within its timeout.
func (c *Call) Passed(ctx context.Context, kind string) (Event, error) {
	e, err := c.Await(ctx, kind)
	if err != nil {
		return Event{}, err
	}
	if e.Field(1) != "true" {
		return Event{}, fmt.Errorf("interop: %s: the barrier call's timeout passed: %v", c.h.name, e)
	}
	return e, nil
}

// millis formats d as the protocol's whole milliseconds, at least 1.
func millis(d time.Duration) string {
	return strconv.FormatInt(max(d.Milliseconds(), 1), 10)
}
