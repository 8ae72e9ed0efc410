package locks

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
)

// Lock names of InterProcessReadWriteLock nodes, as in Curator. They have the
// same length and share one sequence, so readers and writers queue in one
// order.
const (
	lockNameRead  = "__READ__"
	lockNameWrite = "__WRIT__"
)

// InterProcessReadWriteLock is a fair, re-entrant read/write lock that works
// across processes and languages with Curator's protocol: any number of
// readers may hold the read lock at once while no writer holds the write lock,
// which is exclusive. Contenders are served in the order they arrive, so a
// writer that waits is not passed by readers that arrive after it.
//
// Like InterProcessMutex, reentrancy is per handle pair: a holder of the write
// lock may also take the read lock, and releasing the write lock then leaves
// the read lock held (a downgrade) without letting a writer that was waiting
// in between. Taking the write lock while holding only the read lock fails
// with ErrUpgrade at once.
type InterProcessReadWriteLock struct {
	read  *InterProcessMutex
	write *InterProcessMutex
}

// NewInterProcessReadWriteLock returns a read/write lock on path. It makes no
// network call; a nil client, an invalid path or a nil option is reported
// here, with an error matching ErrInvalidArgument. WithLockData sets the data of both
// locks' nodes; WithDriver is not supported (the protocol fixes the drivers)
// and is reported the same way.
func NewInterProcessReadWriteLock(c *framework.Client, path string, opts ...MutexOption) (*InterProcessReadWriteLock, error) {
	if err := validateLock(c, path); err != nil {
		return nil, err
	}
	cfg, err := newMutexConfig(fmt.Sprintf("read/write lock %q", path), opts)
	if err != nil {
		return nil, err
	}
	if cfg.driver != (StandardLockInternalsDriver{}) {
		return nil, errorf("%w: read/write lock %q: WithDriver is not supported", ErrInvalidArgument, path)
	}
	rw := &InterProcessReadWriteLock{}
	rw.write = newMutex(c, path, lockNameWrite, 1, mutexConfig{driver: writeLockDriver{}, data: cfg.data, recipe: recipeWrite})
	rw.read = newMutex(c, path, lockNameRead, math.MaxInt32, mutexConfig{driver: readLockDriver{write: rw.write}, data: cfg.data, recipe: recipeRead})
	rw.write.beforeAcquire = func() error {
		if rw.read.IsAcquiredInThisProcess() {
			return errorf("%w: %s", ErrUpgrade, path)
		}
		return nil
	}
	rw.write.keepParticipant = baseIs(isWriterNode)
	rw.read.keepParticipant = baseIs(isReaderNode)
	return rw, nil
}

// ReadLock returns the shared lock. While this pair's write lock is held it is
// granted at once (the first step of a downgrade). Its ParticipantNodes lists
// the readers' nodes only.
func (rw *InterProcessReadWriteLock) ReadLock() *InterProcessMutex { return rw.read }

// WriteLock returns the exclusive lock. Acquiring it fails with ErrUpgrade
// while this pair holds the read lock but not the write lock. Its
// ParticipantNodes lists the writers' nodes only.
func (rw *InterProcessReadWriteLock) WriteLock() *InterProcessMutex { return rw.write }

// baseIs applies a node-name test to the last element of a node path.
func baseIs(test func(name string) bool) func(nodePath string) bool {
	return func(nodePath string) bool { return test(path.Base(nodePath)) }
}

// rwFixForSorting orders readers and writers by their one shared sequence:
// Curator's key for names that carry "__READ__" or "__WRIT__", and the
// sequence of Python Kazoo's ReadLock ("__rlock__") and WriteLock ("__lock__")
// nodes, so the lock queues with Kazoo's read/write lock on the same path.
func rwFixForSorting(str string) string {
	if key := StandardFixForSorting(StandardFixForSorting(str, lockNameRead), lockNameWrite); key != str {
		return key
	}
	if seq, _, ok := kazooSequence(str); ok {
		return seq
	}
	return str
}

// isWriterNode reports whether a contender of the read/write lock is a writer:
// ours or Curator's "__WRIT__" node, or a node of Kazoo's WriteLock (or Lock).
func isWriterNode(name string) bool {
	if strings.Contains(name, lockNameWrite) {
		return true
	}
	if strings.Contains(name, lockNameRead) {
		return false
	}
	_, reader, ok := kazooSequence(name)
	return ok && !reader
}

// isReaderNode reports whether a contender of the read/write lock is a reader:
// ours or Curator's "__READ__" node, or a node of Kazoo's ReadLock.
func isReaderNode(name string) bool {
	if strings.Contains(name, lockNameRead) {
		return true
	}
	if strings.Contains(name, lockNameWrite) {
		return false
	}
	_, reader, ok := kazooSequence(name)
	return ok && reader
}

// writeLockDriver is the write lock's driver: the standard fair driver over
// readers and writers alike.
//
// It does not claim CreationOrdered: a downgrade creates a read node with the
// sequence of its write node, so a node may appear before a waiting writer
// after the writer listed the children. A writer woken by a deletion must
// list them again to find such a reader ahead of it.
type writeLockDriver struct{}

var _ LockInternalsDriver = writeLockDriver{}

func (writeLockDriver) CreatesTheLock(ctx context.Context, c *framework.Client, lockPath string, data []byte) (string, error) {
	return StandardLockInternalsDriver{}.CreatesTheLock(ctx, c, lockPath, data)
}

func (writeLockDriver) GetsTheLock(ctx context.Context, c *framework.Client, children []string, sequenceNodeName string, maxLeases int) (PredicateResults, error) {
	return StandardLockInternalsDriver{}.GetsTheLock(ctx, c, children, sequenceNodeName, maxLeases)
}

func (writeLockDriver) FixForSorting(str, _ string) string { return rwFixForSorting(str) }

// readLockDriver is the read lock's driver. A reader holds the lock when no
// writer precedes it but its own pair's held write node; it watches the first
// other writer. While the pair holds the write lock, a reader's node reuses
// the write node's sequence as a plain ephemeral node (Curator 5.5's
// downgrade, made atomic in downgrade.go), so releasing the write lock lets
// no queued writer in.
type readLockDriver struct {
	write *InterProcessMutex
}

var (
	_ LockInternalsDriver = readLockDriver{}
	_ CreationOrdered     = readLockDriver{}
	_ tokenCreator        = readLockDriver{}
)

// CreatesTheLock creates a reader's node. While the pair holds the write
// lock, the node takes the write node's sequence (a downgrade, see downgrade.go).
func (d readLockDriver) CreatesTheLock(ctx context.Context, c *framework.Client, lockPath string, data []byte) (string, error) {
	p, _, err := d.createsWithToken(ctx, c, lockPath, data)
	return p, err
}

// createsWithToken is CreatesTheLock that also reports the fencing token of
// a downgrade's read hold: its write hold's. Other reader nodes get 0.
func (d readLockDriver) createsWithToken(ctx context.Context, c *framework.Client, lockPath string, data []byte) (string, int64, error) {
	if d.write.IsAcquiredInThisProcess() {
		p, token, err := d.downgrade(ctx, c, lockPath, data)
		if !errors.Is(err, errWriteReleased) {
			return p, token, err
		}
	}
	p, err := StandardLockInternalsDriver{}.CreatesTheLock(ctx, c, lockPath, data)
	return p, 0, err
}

// GetsTheLock grants the read lock when no writer precedes the reader other
// than this pair's own write node while the pair holds the write lock;
// otherwise the reader watches the first such writer. A writer of another
// pair before the reader always makes it wait, so a release of this pair's
// write lock by another goroutine cannot let a foreign writer in beside it.
func (d readLockDriver) GetsTheLock(_ context.Context, _ *framework.Client, children []string, sequenceNodeName string, _ int) (PredicateResults, error) {
	own := ""
	if p := d.write.LockPath(); p != "" {
		own = path.Base(p)
	}
	firstWriter := -1
	for i, name := range children {
		switch {
		case name == sequenceNodeName:
			if firstWriter >= 0 {
				return PredicateResults{PathToWatch: children[firstWriter]}, nil
			}
			return PredicateResults{GetsTheLock: true}, nil
		case firstWriter < 0 && name != own && isWriterNode(name):
			firstWriter = i
		}
	}
	return PredicateResults{}, errorf("lock node %s is not among the contenders: %w", sequenceNodeName, zk.ErrNoNode)
}

func (readLockDriver) FixForSorting(str, _ string) string { return rwFixForSorting(str) }

// NodesSortInCreationOrder reports true: only read nodes ever sort before
// nodes created earlier (a downgrade), and readers do not wait for readers.
func (readLockDriver) NodesSortInCreationOrder() bool { return true }
