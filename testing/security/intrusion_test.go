package security_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/atomic"
	"github.com/zkcurator/zkcurator/recipes/barriers"
	"github.com/zkcurator/zkcurator/recipes/leader"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// identity makes clients that authenticate as one user.
type identity struct {
	name    string
	connect string
	opts    []framework.Option
}

func (id identity) client(t *testing.T) *framework.Client {
	t.Helper()
	opts := append([]framework.Option{framework.WithACLProvider(framework.CreatorAllACLProvider())}, id.opts...)
	return zkclient.New(t, id.connect, opts...)
}

// identities returns an owner and an intruder of each kind: digest users on
// the plaintext port, and x509 certificates from the same CA on the secure
// port.
func identities(t *testing.T) map[string][2]identity {
	ca := zktest.StartCA(t, "zk")
	srv := zktest.StartServer(t, zktest.WithTLS(ca, zktest.ClientAuthWant))
	cert := func(cn string) *zktest.Cert {
		c, err := ca.Client(cn)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	digest := func(user string) identity {
		return identity{user, srv.Addr(), []framework.Option{framework.WithAuth("digest", []byte(user+":secret-of-"+user))}}
	}
	x509 := func(cn string) identity {
		return identity{cn, srv.SecureAddr(), []framework.Option{framework.WithTLS(ca.ClientConfig(cert(cn)))}}
	}
	return map[string][2]identity{
		"Digest": {digest("alice"), digest("mallory")},
		"X509":   {x509("alice"), x509("mallory")},
	}
}

// refused fails the test unless err is ZooKeeper's NoAuth.
func refused(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, zk.ErrNoAuth) {
		t.Errorf("%s = %v; want zk.ErrNoAuth", what, err)
	}
}

// open fails the test if ch is closed: the holder saw a Lost.
func open(t *testing.T, what string, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
		t.Errorf("%s closed after the intrusion attempts", what)
	default:
	}
}

// attackNode tries to delete, overwrite and read node as the intruder, to
// revoke it when it is a contender's, and to create a node of its own beside
// it.
func attackNode(t *testing.T, ctx context.Context, intruder *framework.Client, node string, contender bool) {
	t.Helper()
	refused(t, "delete "+node, intruder.Delete(ctx, node))
	_, err := intruder.SetData(ctx, node, []byte("mine now"), -1)
	refused(t, "overwrite "+node, err)
	_, _, err = intruder.GetData(ctx, node)
	refused(t, "read "+node, err)
	if contender {
		refused(t, "revoke "+node, locks.AttemptRevoke(ctx, intruder, node))
	}
	parent := node[:len(node)-len(lastName(node))-1]
	_, err = intruder.Create(ctx, parent+"/intruder", nil, framework.WithMode(framework.Ephemeral))
	refused(t, "create beside "+node, err)
}

func lastName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}

// TestIntruderCannotTouchRecipeNodes: with creator-all ACLs, a second
// identity cannot delete, overwrite, revoke or read-and-steal another's lock
// node, lease, leader node, counter or barrier node; the holder keeps holding
// and sees no Lost, and the same identity on a new session cleans up.
func TestIntruderCannotTouchRecipeNodes(t *testing.T) {
	for kind, pair := range identities(t) {
		t.Run(kind, func(t *testing.T) {
			owner, intruder := pair[0].client(t), pair[1].client(t)
			ctx := zktest.Context(t, 30*time.Second)
			root := "/guarded-" + kind

			// Lock.
			m := newMutex(t, owner, root+"/lock")
			if err := m.Acquire(ctx); err != nil {
				t.Fatal(err)
			}
			nodes, err := m.ParticipantNodes(ctx)
			if err != nil || len(nodes) != 1 {
				t.Fatalf("ParticipantNodes = %v, %v", nodes, err)
			}
			attackNode(t, ctx, intruder, nodes[0], true)
			steal := newMutex(t, intruder, root+"/lock")
			ok, err := steal.TryAcquire(ctx, 500*time.Millisecond)
			if ok || !errors.Is(err, zk.ErrNoAuth) {
				t.Errorf("intruder's TryAcquire = %v, %v; want false, zk.ErrNoAuth", ok, err)
			}

			// Lease.
			sem := newSemaphore(t, owner, root+"/semaphore", 1)
			lease, err := sem.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			attackNode(t, ctx, intruder, lease.Path(), true)
			if _, err := newSemaphore(t, intruder, root+"/semaphore", 1).TryAcquire(ctx, 1, 500*time.Millisecond); !errors.Is(err, zk.ErrNoAuth) {
				t.Errorf("intruder's semaphore TryAcquire = %v; want zk.ErrNoAuth", err)
			}

			// Leader.
			latch, err := leader.NewLeaderLatch(owner, root+"/leader", "owner")
			if err != nil {
				t.Fatal(err)
			}
			if err := latch.Start(); err != nil {
				t.Fatal(err)
			}
			defer latch.Close(context.Background())
			term, err := latch.Await(ctx)
			if err != nil {
				t.Fatal(err)
			}
			latchNodes, _, err := owner.Children(ctx, root+"/leader")
			if err != nil || len(latchNodes) != 1 {
				t.Fatalf("latch nodes = %v, %v", latchNodes, err)
			}
			attackNode(t, ctx, intruder, root+"/leader/"+latchNodes[0], true)

			// Counter.
			counter, err := atomic.NewDistributedAtomicLong(owner, root+"/counter")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := counter.Add(ctx, 41); err != nil {
				t.Fatal(err)
			}
			stolen, err := atomic.NewDistributedAtomicLong(intruder, root+"/counter")
			if err != nil {
				t.Fatal(err)
			}
			_, err = stolen.Increment(ctx)
			refused(t, "intruder's Increment", err)
			refused(t, "intruder's ForceSet", stolen.ForceSet(ctx, 0))
			attackNode(t, ctx, intruder, root+"/counter", false)

			// Barrier.
			barrier, err := barriers.NewDistributedBarrier(owner, root+"/barrier")
			if err != nil {
				t.Fatal(err)
			}
			if err := barrier.Set(ctx); err != nil {
				t.Fatal(err)
			}
			lifted, err := barriers.NewDistributedBarrier(intruder, root+"/barrier")
			if err != nil {
				t.Fatal(err)
			}
			refused(t, "intruder's barrier Remove", lifted.Remove(ctx))
			attackNode(t, ctx, intruder, root+"/barrier", false)

			// The holders hold, and saw nothing.
			if !m.IsAcquiredInThisProcess() {
				t.Error("the owner lost the lock")
			}
			open(t, "the lock's Lost", m.Lost())
			open(t, "the lease's Lost", lease.Lost())
			open(t, "the leadership term", term.Context().Done())
			if !latch.HasLeadership() {
				t.Error("the owner lost leadership")
			}
			if v, err := counter.Get(ctx); err != nil || v.PostValue != 41 {
				t.Errorf("counter = %+v, %v; want 41", v, err)
			}

			// The owner lets go; the same identity on a new session cleans up
			// what is left (the counter, the barrier and the containers).
			if err := m.Release(ctx); err != nil {
				t.Fatal(err)
			}
			if err := lease.Close(ctx); err != nil {
				t.Fatal(err)
			}
			if err := latch.Close(ctx); err != nil {
				t.Fatal(err)
			}
			owner.Close()
			again := pair[0].client(t)
			if err := again.Delete(ctx, root, framework.DeletingChildrenIfNeeded()); err != nil {
				t.Fatalf("the owner's new session cannot clean up: %v", err)
			}
		})
	}
}
