package locks

import (
	"context"
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

// UnfairHolderNodeName is the child of the lock path that the unfair
// driver's holder owns while it holds the lock. Its ordering key (the text
// after "lock-") is empty, so every fair contender, ours and Curator's, sorts
// it first and waits for it.
const UnfairHolderNodeName = "holder-lock-"

// unfairKeyPrefix starts the ordering key of the unfair driver's contender
// nodes: a letter sorts after every sequence number, ours and Curator's, so
// fair contenders never wait for an unfair waiter, and the unfair driver
// tells fair nodes from its own.
const unfairKeyPrefix = "u"

// UnfairLockInternalsDriver hands the lock to a random waiter instead of the
// longest waiting one: contenders create protected EPHEMERAL nodes named
// "lock-u" and a random number of SuffixDigits digits (DefaultSuffixDigits
// when 0), and the next holder is the waiter with the lowest number.
//
// Unlike the naive random-suffix driver it keeps mutual exclusion: a
// newcomer whose suffix sorts below the holder's does not get the lock,
// because the lowest contender must also create the ephemeral child
// UnfairHolderNodeName (see Holding), which exists until the holder releases.
// Each release still wakes O(1) waiters.
//
// It shares a path safely with fair contenders (StandardLockInternalsDriver,
// PersistentTTLLockInternalsDriver and Curator's InterProcessMutex in Java),
// as during a rolling switch from one driver to the other: fair contenders
// sort the holder node first and wait for it, and unfair contenders let fair
// ones go first: a contender that finds a fair node after claiming the
// holder node gives it back (see DRIVERS.md).
type UnfairLockInternalsDriver struct {
	SuffixDigits int
}

var (
	_ LockInternalsDriver = UnfairLockInternalsDriver{}
	_ Holding             = UnfairLockInternalsDriver{}
	_ fairYielder         = UnfairLockInternalsDriver{}
	_ validated           = UnfairLockInternalsDriver{}
)

// validate reports SuffixDigits outside 1..18 (0 is the default).
func (d UnfairLockInternalsDriver) validate() error {
	_, err := d.digits()
	return err
}

func (d UnfairLockInternalsDriver) digits() (int, error) {
	switch {
	case d.SuffixDigits == 0:
		return DefaultSuffixDigits, nil
	case d.SuffixDigits < 0 || d.SuffixDigits > maxSuffixDigits:
		return 0, errorf("%w: UnfairLockInternalsDriver.SuffixDigits %d is outside 1..%d", ErrInvalidArgument, d.SuffixDigits, maxSuffixDigits)
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
	suffix = unfairKeyPrefix + strings.Repeat("0", n-len(suffix)) + suffix
	return c.Create(ctx, path+suffix, data,
		framework.WithMode(framework.Ephemeral),
		framework.WithProtection(),
		framework.CreatingParentContainersIfNeeded())
}

// GetsTheLock lets fair contenders go first: while any contender is not an
// unfair one (its key is a sequence number), it watches the first of them.
// Otherwise it picks the unfair contender with the lowest suffix; the others
// watch the unfair contender just before them. The pick only becomes a hold
// once the holder node is claimed (see HolderNodeName).
func (UnfairLockInternalsDriver) GetsTheLock(ctx context.Context, c *framework.Client, children []string, sequenceNodeName string, maxLeases int) (PredicateResults, error) {
	unfair := make([]string, 0, len(children))
	for _, name := range children {
		switch {
		case name == UnfairHolderNodeName:
		case !isUnfairNode(name):
			return PredicateResults{PathToWatch: name}, nil
		default:
			unfair = append(unfair, name)
		}
	}
	return StandardLockInternalsDriver{}.GetsTheLock(ctx, c, unfair, sequenceNodeName, maxLeases)
}

// yieldsToFair reports true: fair contenders on the same path go first.
func (UnfairLockInternalsDriver) yieldsToFair() bool { return true }

// isUnfairNode reports whether a contender's node was made by the unfair driver.
func isUnfairNode(name string) bool {
	return strings.HasPrefix(StandardFixForSorting(name, lockNameMutex), unfairKeyPrefix)
}

// FixForSorting returns the random suffix after the last lockName.
func (UnfairLockInternalsDriver) FixForSorting(str, lockName string) string {
	return StandardFixForSorting(str, lockName)
}

// HolderNodeName names the ephemeral child that the holder owns.
func (UnfairLockInternalsDriver) HolderNodeName() string { return UnfairHolderNodeName }

func pow10(n int) uint64 {
	p := uint64(1)
	for range n {
		p *= 10
	}
	return p
}
