package locks

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/zkcurator/zkcurator/framework"
)

// DefaultSuffixDigits is the length of UnfairLockInternalsDriver's random
// suffix when SuffixDigits is zero.
const DefaultSuffixDigits = 10

// maxSuffixDigits keeps a suffix within an int64.
const maxSuffixDigits = 18

// holderNodeName is the child of the lock path that the unfair driver's
// holder owns while it holds the lock.
const holderNodeName = "holder"

// UnfairLockInternalsDriver hands the lock to a random waiter instead of the
// longest waiting one: contenders create protected EPHEMERAL nodes with a
// random numeric suffix of SuffixDigits digits (DefaultSuffixDigits when 0),
// and the next holder is the waiter with the lowest suffix.
//
// Unlike the naive random-suffix driver it keeps mutual exclusion: a
// newcomer whose suffix sorts below the holder's does not get the lock,
// because the lowest contender must also create the ephemeral "holder" child
// (see Holding), which exists until the holder releases. Each release still
// wakes O(1) waiters.
type UnfairLockInternalsDriver struct {
	SuffixDigits int
}

var (
	_ LockInternalsDriver = UnfairLockInternalsDriver{}
	_ Holding             = UnfairLockInternalsDriver{}
)

func (d UnfairLockInternalsDriver) digits() (int, error) {
	switch {
	case d.SuffixDigits == 0:
		return DefaultSuffixDigits, nil
	case d.SuffixDigits < 0 || d.SuffixDigits > maxSuffixDigits:
		return 0, fmt.Errorf("locks: UnfairLockInternalsDriver.SuffixDigits %d is outside 1..%d", d.SuffixDigits, maxSuffixDigits)
	}
	return d.SuffixDigits, nil
}

// CreatesTheLock creates a protected ephemeral node at path followed by a
// random suffix, creating missing parents as containers.
func (d UnfairLockInternalsDriver) CreatesTheLock(ctx context.Context, c *framework.Client, path string, data []byte) (string, error) {
	n, err := d.digits()
	if err != nil {
		return "", err
	}
	suffix := strconv.FormatUint(rand.Uint64N(pow10(n)), 10)
	suffix = strings.Repeat("0", n-len(suffix)) + suffix
	return c.Create(ctx, path+suffix, data,
		framework.WithMode(framework.Ephemeral),
		framework.WithProtection(),
		framework.CreatingParentContainersIfNeeded())
}

// GetsTheLock picks the contender with the lowest suffix; the others watch
// the contender just before them. The pick only becomes a hold once the
// holder node is created (see HolderNodeName).
func (UnfairLockInternalsDriver) GetsTheLock(ctx context.Context, c *framework.Client, children []string, sequenceNodeName string, maxLeases int) (PredicateResults, error) {
	return StandardLockInternalsDriver{}.GetsTheLock(ctx, c, children, sequenceNodeName, maxLeases)
}

// FixForSorting returns the random suffix after the last lockName.
func (UnfairLockInternalsDriver) FixForSorting(str, lockName string) string {
	return StandardFixForSorting(str, lockName)
}

// HolderNodeName names the ephemeral child that the holder owns.
func (UnfairLockInternalsDriver) HolderNodeName() string { return holderNodeName }

func pow10(n int) uint64 {
	p := uint64(1)
	for range n {
		p *= 10
	}
	return p
}
