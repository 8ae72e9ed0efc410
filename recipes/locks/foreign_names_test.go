package locks_test

import (
	"context"
	"path"
	"reflect"
	"testing"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// kazooHex is the uuid4().hex Kazoo puts before its marker.
const kazooHex = "3f2b8a0c9d4e4f0a8b1c2d3e4f5a6b7c"

func TestStandardFixForSortingReadsForeignNames(t *testing.T) {
	for _, tc := range []struct {
		name, lockName, want string
	}{
		// Curator's rule, unchanged, for every name that carries the lock name.
		{"_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000010", "lock-", "0000000010"},
		{"_c_0123456789abcdef0123456789abcdef-lock-0000000011", "lock-", "0000000011"}, // go-zookeeper's zk.Lock
		{kazooHex + "-lock-0000000012", "lock-", "0000000012"},                         // Kazoo with a Curator node name
		{"holder-lock-", "lock-", ""},
		{"_c_x-lock-u0000000007", "lock-", "u0000000007"},
		{"_c_x-lock-0000000004.released", "lock-", "0000000004.released"},
		// Kazoo's Lock, WriteLock and ReadLock nodes, for the mutex's lock name.
		{kazooHex + "__lock__0000000013", "lock-", "0000000013"},
		{kazooHex + "__rlock__0000000014", "lock-", "0000000014"},
		{kazooHex + "__lock__-2147483648", "lock-", "-2147483648"},
		// Not contenders: no sequence, no marker, or another lock name.
		{kazooHex + "__lock__", "lock-", kazooHex + "__lock__"},
		{kazooHex + "__lock__00000x0013", "lock-", kazooHex + "__lock__00000x0013"},
		{kazooHex + "__lock__+000000013", "lock-", kazooHex + "__lock__+000000013"},
		{kazooHex + "__lock__99999999999", "lock-", kazooHex + "__lock__99999999999"},
		{kazooHex + "__LOCK__0000000013", "lock-", kazooHex + "__LOCK__0000000013"},
		{"unrelated", "lock-", "unrelated"},
		{kazooHex + "__lock__0000000013", "lease-", kazooHex + "__lock__0000000013"},
		{"_c_x-__READ__0000000004", "lock-", "_c_x-__READ__0000000004"},
	} {
		if got := locks.StandardFixForSorting(tc.name, tc.lockName); got != tc.want {
			t.Errorf("StandardFixForSorting(%q, %q) = %q, want %q", tc.name, tc.lockName, got, tc.want)
		}
	}
}

func TestSortedContendersQueuesKazooByItsSequence(t *testing.T) {
	children := []string{
		kazooHex + "__rlock__0000000005",
		"_c_0123456789abcdef0123456789abcdef-lock-0000000003",
		kazooHex + "__lock__0000000002",
		"unrelated",
		"_c_11111111-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000004",
		kazooHex + "__lock__",
		"_c_22222222-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000001",
	}
	got := locks.SortedContenders(children, "lock-", locks.StandardFixForSorting)
	want := []string{
		"_c_22222222-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000001",
		kazooHex + "__lock__0000000002",
		"_c_0123456789abcdef0123456789abcdef-lock-0000000003",
		"_c_11111111-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000004",
		kazooHex + "__rlock__0000000005",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SortedContenders =\n%v\nwant\n%v", got, want)
	}
}

// kazooNode creates, in its own session, an ephemeral sequential node named
// as Kazoo names its lock nodes (marker "__lock__" or "__rlock__") under
// lockPath, and returns the client that owns it and its path.
func kazooNode(t *testing.T, ctx context.Context, connect, lockPath, marker string) (*framework.Client, string) {
	t.Helper()
	c := zkclient.New(t, connect)
	p, err := c.Create(ctx, framework.JoinPath(lockPath, kazooHex+marker), nil,
		framework.WithMode(framework.EphemeralSequential), framework.CreatingParentContainersIfNeeded())
	zktest.Must(t, err)
	return c, p
}

// A node named as Kazoo's Lock names it holds the lock for our mutex while it
// is first in sequence order, and queues behind our holder when it is not.
func TestMutexQueuesWithKazooNamedNodes(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())

	t.Run("KazooFirst", func(t *testing.T) {
		const lockPath = "/foreign/kazoo-first"
		owner, node := kazooNode(t, ctx, srv.ConnectString(), lockPath, "__lock__")
		m := built(locks.NewInterProcessMutex(c, lockPath))
		assertWaits(t, ctx, m, "our mutex, while a Kazoo node is first")
		got := make(chan error, 1)
		go func() { got <- m.Acquire(ctx) }()
		nodes := waitParticipants(t, m, 2)
		if nodes[0] != node {
			t.Fatalf("participants %q: want the Kazoo node %s first", nodes, node)
		}
		assertPending(t, got, "our mutex")
		zktest.Must(t, owner.Delete(ctx, node))
		awaitResult(t, got, "our mutex once the Kazoo node was deleted")
		zktest.Must(t, m.Release(ctx))
	})

	t.Run("OursFirst", func(t *testing.T) {
		const lockPath = "/foreign/ours-first"
		m := built(locks.NewInterProcessMutex(c, lockPath))
		zktest.Must(t, m.Acquire(ctx))
		_, reader := kazooNode(t, ctx, srv.ConnectString(), lockPath, "__rlock__")
		nodes, err := m.ParticipantNodes(ctx)
		zktest.Must(t, err)
		if want := []string{m.LockPath(), reader}; !reflect.DeepEqual(nodes, want) {
			t.Fatalf("participants %q, want %q", nodes, want)
		}
		zktest.Must(t, m.Release(ctx))
		// The Kazoo node is now first: a second acquire of ours queues behind it.
		assertWaits(t, ctx, m, "our mutex, behind a Kazoo ReadLock node")
	})
}

// For the read/write lock a "__rlock__" node is a reader and a "__lock__" node
// a writer, in the one sequence readers and writers share.
func TestReadWriteLockReadsKazooReadersAndWriters(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())

	t.Run("KazooReader", func(t *testing.T) {
		const lockPath = "/foreign/rw-reader"
		owner, node := kazooNode(t, ctx, srv.ConnectString(), lockPath, "__rlock__")
		rw := built(locks.NewInterProcessReadWriteLock(c, lockPath))
		zktest.Must(t, rw.ReadLock().Acquire(ctx)) // readers share
		other := built(locks.NewInterProcessReadWriteLock(c, lockPath))
		assertWaits(t, ctx, other.WriteLock(), "our writer, behind a Kazoo reader")
		readers, err := rw.ReadLock().ParticipantNodes(ctx)
		zktest.Must(t, err)
		if want := []string{node, rw.ReadLock().LockPath()}; !reflect.DeepEqual(readers, want) {
			t.Fatalf("readers %q, want %q", readers, want)
		}
		writers, err := rw.WriteLock().ParticipantNodes(ctx)
		zktest.Must(t, err)
		if len(writers) != 0 {
			t.Fatalf("writers %q, want none", writers)
		}
		zktest.Must(t, rw.ReadLock().Release(ctx))
		zktest.Must(t, owner.Delete(ctx, node))
		zktest.Must(t, rw.WriteLock().Acquire(ctx))
		zktest.Must(t, rw.WriteLock().Release(ctx))
	})

	t.Run("KazooWriter", func(t *testing.T) {
		const lockPath = "/foreign/rw-writer"
		owner, node := kazooNode(t, ctx, srv.ConnectString(), lockPath, "__lock__")
		rw := built(locks.NewInterProcessReadWriteLock(c, lockPath))
		assertWaits(t, ctx, rw.ReadLock(), "our reader, behind a Kazoo writer")
		assertWaits(t, ctx, rw.WriteLock(), "our writer, behind a Kazoo writer")
		got := make(chan error, 1)
		go func() { got <- rw.ReadLock().Acquire(ctx) }()
		waitParticipants(t, rw.ReadLock(), 1)
		writers, err := rw.WriteLock().ParticipantNodes(ctx)
		zktest.Must(t, err)
		if want := []string{node}; !reflect.DeepEqual(writers, want) {
			t.Fatalf("writers %q, want %q", writers, want)
		}
		assertPending(t, got, "our reader")
		zktest.Must(t, owner.Delete(ctx, node))
		awaitResult(t, got, "our reader once the Kazoo writer was deleted")
		if p := rw.ReadLock().LockPath(); path.Dir(p) != lockPath {
			t.Fatalf("read lock node %q is not under %s", p, lockPath)
		}
		zktest.Must(t, rw.ReadLock().Release(ctx))
	})
}
