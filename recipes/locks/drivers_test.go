package locks_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/locktest"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// holderIdentityDriver is a driver as a user of the package writes it: the
// standard fair driver, embedded, with one method overridden so that every
// node names the contender that created it.
type holderIdentityDriver struct {
	locks.StandardLockInternalsDriver
	identity string
}

func (d holderIdentityDriver) CreatesTheLock(ctx context.Context, c *framework.Client, path string, _ []byte) (string, error) {
	return d.StandardLockInternalsDriver.CreatesTheLock(ctx, c, path, []byte(d.identity))
}

// TestDriverSuite runs the suite every driver must pass over the built-in
// drivers, a user-written one and the persistent TTL driver, on one server.
func TestDriverSuite(t *testing.T) {
	srv := zktest.StartServer(t, zktest.WithExtendedTypes(), zktest.WithContainerCheckInterval(200*time.Millisecond))
	connect := srv.ConnectString()

	t.Run("Standard", func(t *testing.T) {
		locktest.RunDriverSuite(t, connect, func() locks.LockInternalsDriver { return locks.StandardLockInternalsDriver{} })
	})
	t.Run("Unfair", func(t *testing.T) {
		locktest.RunDriverSuite(t, connect, func() locks.LockInternalsDriver { return locks.UnfairLockInternalsDriver{} })
	})
	t.Run("UserEmbeddingStandard", func(t *testing.T) {
		n := 0
		locktest.RunDriverSuite(t, connect, func() locks.LockInternalsDriver {
			n++
			return holderIdentityDriver{identity: fmt.Sprintf("contender-%d", n)}
		})
	})
	t.Run("PersistentTTL", func(t *testing.T) {
		locktest.RunDriverSuite(t, connect, func() locks.LockInternalsDriver {
			d, err := locks.NewPersistentTTLLockInternalsDriver(1500 * time.Millisecond)
			if err != nil {
				t.Fatalf("NewPersistentTTLLockInternalsDriver: %v", err)
			}
			return d
		})
	})
	t.Run("PersistentTTLWithID", func(t *testing.T) {
		locktest.RunDriverSuite(t, connect, func() locks.LockInternalsDriver {
			d, err := locks.NewPersistentTTLLockInternalsDriver(1500*time.Millisecond, locks.WithProtectedID(protection.NewID()))
			if err != nil {
				t.Fatalf("NewPersistentTTLLockInternalsDriver: %v", err)
			}
			return d
		})
	})
}

// TestUserDriverNodesNameTheirHolder checks that the overridden method is the
// one used while the inherited ones still order the contenders: the holder's
// node and the waiter's carry their identities, holder first.
func TestUserDriverNodesNameTheirHolder(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const path = "/drivers/identity"
	c := zkclient.New(t, srv.ConnectString())
	holder := built(locks.NewInterProcessMutex(c, path,
		locks.WithDriver(holderIdentityDriver{identity: "host-a/pid-1"}), locks.WithLockData([]byte("ignored"))))
	waiter := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), path,
		locks.WithDriver(holderIdentityDriver{identity: "host-b/pid-2"})))
	if err := holder.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() { got <- waiter.Acquire(ctx) }()
	var nodes []string
	zktest.Eventually(t, 10*time.Second, "two contenders", func() bool {
		var err error
		nodes, err = holder.ParticipantNodes(ctx)
		return err == nil && len(nodes) == 2
	})
	if nodes[0] != holder.LockPath() {
		t.Fatalf("participants %v: holder's node %s is not first", nodes, holder.LockPath())
	}
	for i, want := range []string{"host-a/pid-1", "host-b/pid-2"} {
		data, _, err := c.GetData(ctx, nodes[i])
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != want {
			t.Errorf("node %s holds %q, want %q", nodes[i], data, want)
		}
	}
	if err := holder.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if err := waiter.Release(ctx); err != nil {
		t.Fatal(err)
	}
}
