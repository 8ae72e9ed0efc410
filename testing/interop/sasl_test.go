package interop

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// The SASL users of the server in these tests and their passwords.
var saslUsers = map[string]string{
	"curator":   "curator-pw-3f81c2",
	"zkcurator": "zkcurator-pw-9b47de",
	"mallory":   "mallory-pw-60ea15",
}

// TestCuratorAndZkcuratorShareAMutexOverSASL: on a server that requires
// SASL, Curator authenticated by DIGEST-MD5 from a JAAS Client section and
// zkcurator authenticated by SASLDigest share an InterProcessMutex whose
// nodes (each side's lock node and the parents) carry sasl ACLs for the two
// identities. With either holding, the other waits behind it and gets the
// lock after the release, never before; a third SASL identity is refused the
// lock with NoAuth.
func TestCuratorAndZkcuratorShareAMutexOverSASL(t *testing.T) {
	srv := zktest.StartServer(t, zktest.WithSASLDigest(saslUsers), zktest.WithSASLRequired())
	jaas, err := WriteJAASDigestClient(t.TempDir(), "curator", saslUsers["curator"])
	if err != nil {
		t.Fatal(err)
	}
	java := StartHelper(t, srv.Addr(), WithSASL(jaas), WithACL("sasl:curator", "sasl:zkcurator"))
	both := framework.SASLACLProvider("curator", "zkcurator")
	gc := zkclient.New(t, srv.Addr(),
		framework.WithSASL(framework.SASLDigest("zkcurator", saslUsers["zkcurator"])),
		framework.WithACLProvider(both))

	shareAMutexUnderACL(t, gc, java, "/interop/sasl", both.DefaultACL())

	ctx := testContext(t, 20*time.Second)
	mallory := zkclient.New(t, srv.Addr(), framework.WithSASL(framework.SASLDigest("mallory", saslUsers["mallory"])))
	refusedTheLock(t, ctx, mallory, "/interop/sasl/"+firstName(true))
}

// shareAMutexUnderACL: with either side holding the mutex under base (a path
// each for Go first and Java first), the other waits behind it and gets the
// lock after the release, never before; every node of the lock, the parents
// included, carries acl.
func shareAMutexUnderACL(t *testing.T, gc *framework.Client, java *Helper, base string, acl []zk.ACL) {
	t.Helper()
	for _, goFirst := range []bool{false, true} {
		name := firstName(goFirst)
		t.Run(name, func(t *testing.T) {
			ctx := testContext(t, 40*time.Second)
			path := base + "/" + name
			g := goMutex(gc, "zkcurator", path)
			j := javaMutex(t, ctx, java, fresh(strings.TrimPrefix(base, "/interop/")), path)
			order := []contender{j, g}
			if goFirst {
				order = []contender{g, j}
			}
			ps := []*pending{acquire(t, ctx, order[0]), order[1].start(ctx)}
			var nodes []string
			waitFor(t, ctx, "the waiter's lock node", func() (bool, error) {
				var err error
				nodes, err = g.participants(ctx)
				return len(nodes) == 2, err
			})
			for _, p := range append([]string{base, path}, nodes...) {
				got, _, err := gc.GetACL(ctx, p)
				if err != nil || !slices.Equal(got, acl) {
					t.Errorf("ACL of %s = %v, %v; want %v", p, got, err, acl)
				}
			}
			checkExclusive(t, handOver(t, ctx, order, ps, nodes))
		})
	}
}

// refusedTheLock: a client of an identity the lock's ACL leaves out is
// refused the lock at path with NoAuth.
func refusedTheLock(t *testing.T, ctx context.Context, c *framework.Client, path string) {
	t.Helper()
	m := built(locks.NewInterProcessMutex(c, path))
	if ok, err := m.TryAcquire(ctx, 5*time.Second); ok || !errors.Is(err, zk.ErrNoAuth) {
		t.Errorf("a third identity's TryAcquire = %v, %v; want zk.ErrNoAuth", ok, err)
	}
}

// TestCuratorSASLRefusals: what a Curator service sees from a server that
// requires SASL when it does not authenticate, and when its password is
// wrong, as docs/security.md's table of errors states: every operation fails
// with SESSIONCLOSEDREQUIRESASLAUTH, or with AUTHFAILED.
func TestCuratorSASLRefusals(t *testing.T) {
	srv := zktest.StartServer(t, zktest.WithSASLDigest(saslUsers), zktest.WithSASLRequired())
	jaas, err := WriteJAASDigestClient(t.TempDir(), "curator", "wrong-pw-d0c8e1")
	if err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t, 40*time.Second)
	for _, tc := range []struct {
		name string
		opts []Option
		want string
	}{
		{"NoSASL", nil, "SESSIONCLOSEDREQUIRESASLAUTH"},
		{"WrongPassword", []Option{WithSASL(jaas)}, "AUTHFAILED"},
	} {
		h := StartHelper(t, srv.Addr(), append(tc.opts, WithName("curator-"+tc.name))...)
		if got, err := h.TryOp(ctx, "read", "/"); err != nil || got != tc.want {
			t.Errorf("%s: Curator's read of / = %q, %v; want %s", tc.name, got, err, tc.want)
		}
	}
}
