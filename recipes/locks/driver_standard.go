package locks

import (
	"context"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
)

// StandardLockInternalsDriver is the fair driver of Curator's
// InterProcessMutex: protected EPHEMERAL_SEQUENTIAL nodes named
// "_c_<uuid>-<lockName><sequence>" under container parents, held in sequence
// order. Embed it to override one method and inherit the others; a driver
// whose nodes do not sort in creation order must also override
// NodesSortInCreationOrder.
type StandardLockInternalsDriver struct{}

var (
	_ LockInternalsDriver = StandardLockInternalsDriver{}
	_ CreationOrdered     = StandardLockInternalsDriver{}
)

// CreatesTheLock creates a protected ephemeral sequential node at path,
// creating missing parents as containers, exactly as Curator does.
func (StandardLockInternalsDriver) CreatesTheLock(ctx context.Context, c *framework.Client, path string, data []byte) (string, error) {
	return c.Create(ctx, path, data,
		framework.WithMode(framework.EphemeralSequential),
		framework.WithProtection(),
		framework.CreatingParentContainersIfNeeded())
}

// GetsTheLock grants the lock to the first maxLeases contenders; any other
// contender watches the one maxLeases places before it, so each release
// wakes one waiter. It fails with an error matching zk.ErrNoNode when
// sequenceNodeName is not among the contenders.
func (StandardLockInternalsDriver) GetsTheLock(_ context.Context, _ *framework.Client, children []string, sequenceNodeName string, maxLeases int) (PredicateResults, error) {
	ourIndex := indexOf(children, sequenceNodeName)
	if ourIndex < 0 {
		return PredicateResults{}, fmt.Errorf("lock node %s is not among the contenders: %w", sequenceNodeName, zk.ErrNoNode)
	}
	if ourIndex < maxLeases {
		return PredicateResults{GetsTheLock: true}, nil
	}
	return PredicateResults{PathToWatch: children[ourIndex-maxLeases]}, nil
}

// FixForSorting returns StandardFixForSorting(str, lockName).
func (StandardLockInternalsDriver) FixForSorting(str, lockName string) string {
	return StandardFixForSorting(str, lockName)
}

// NodesSortInCreationOrder reports true: sequential nodes only grow.
func (StandardLockInternalsDriver) NodesSortInCreationOrder() bool { return true }

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}
