package interop

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/atomic"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// TestCuratorAndZkcuratorExcludeEachOtherOverTLS: a Curator client and a
// zkcurator client, each with its own certificate, on the secure port of a
// server that requires client certificates, exclude each other on one lock
// path.
func TestCuratorAndZkcuratorExcludeEachOtherOverTLS(t *testing.T) {
	ca := zktest.StartCA(t, "zk")
	srv := zktest.StartServer(t, zktest.WithTLS(ca, zktest.ClientAuthNeed))
	javaCert, err := ca.Client("curator")
	if err != nil {
		t.Fatal(err)
	}
	goCert, err := ca.Client("zkcurator")
	if err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t, time.Minute)
	// A JVM's first TLS handshake is slow on a busy machine: the helper's
	// connection timeout is its session timeout.
	java := StartHelper(t, srv.SecureAddr(), WithTLS(ca.CertFile, javaCert.KeyStoreFile), WithSessionTimeout(15*time.Second))
	gc := zkclient.New(t, srv.SecureAddr(), framework.WithTLS(ca.ClientConfig(goCert)))
	const path = "/interop/tls/lock"

	m := goMutex(gc, "zkcurator", path).m
	if err := m.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	if err := java.Mutex(ctx, "m", path); err != nil {
		t.Fatal(err)
	}
	if _, err := java.Acquire(ctx, "m", 500*time.Millisecond); !errors.Is(err, ErrNotAcquired) {
		t.Fatalf("Curator's acquire while zkcurator holds = %v; want ErrNotAcquired", err)
	}
	if err := m.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := java.Acquire(ctx, "m", 20*time.Second); err != nil {
		t.Fatalf("Curator's acquire after zkcurator released: %v", err)
	}
	if ok, err := m.TryAcquire(ctx, 500*time.Millisecond); ok || err != nil {
		t.Fatalf("zkcurator's TryAcquire while Curator holds = %v, %v; want false, nil", ok, err)
	}
	if _, err := java.Release(ctx, "m"); err != nil {
		t.Fatal(err)
	}
	if ok, err := m.TryAcquire(ctx, 20*time.Second); !ok || err != nil {
		t.Fatalf("zkcurator's TryAcquire after Curator released = %v, %v", ok, err)
	}
	if err := m.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestCuratorDigestUsesZkcuratorsNodes: nodes zkcurator creates with
// creator-all ACLs under a digest identity are usable by a Curator client
// with the same digest authentication, and refused to one without it.
func TestCuratorDigestUsesZkcuratorsNodes(t *testing.T) {
	srv := startZooKeeper(t)
	ctx := testContext(t, time.Minute)
	gc := zkclient.New(t, srv.ConnectString(),
		framework.WithAuth("digest", []byte("orders:s3cret")),
		framework.WithACLProvider(framework.CreatorAllACLProvider()))
	counter, err := atomic.NewDistributedAtomicLong(gc, "/interop/acl/counter")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := counter.Increment(ctx); err != nil {
		t.Fatal(err)
	}
	m := goMutex(gc, "zkcurator", "/interop/acl/lock").m
	if err := m.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.Release(ctx); err != nil {
		t.Fatal(err)
	}

	with := StartHelper(t, srv.ConnectString(), WithName("curator-with-digest"))
	if err := with.AddAuth(ctx, "digest", "orders:s3cret"); err != nil {
		t.Fatal(err)
	}
	without := StartHelper(t, srv.ConnectString(), WithName("curator-without"))
	for _, tc := range []struct {
		h    *Helper
		op   string
		want string
	}{
		{without, "read", "NOAUTH"},
		{without, "write", "NOAUTH"},
		{without, "delete", "NOAUTH"},
		{with, "read", "OK"},
		{with, "write", "OK"},
	} {
		got, err := tc.h.TryOp(ctx, tc.op, "/interop/acl/counter")
		if err != nil || got != tc.want {
			t.Errorf("%s %s the counter = %q, %v; want %s", tc.h.Name(), tc.op, got, err, tc.want)
		}
	}

	// The lock: Curator with the digest takes it, without it is refused.
	for _, h := range []*Helper{with, without} {
		if err := h.Mutex(ctx, "m", "/interop/acl/lock"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := without.Acquire(ctx, "m", 5*time.Second); !errors.Is(err, ErrCommandFailed) || !strings.Contains(err.Error(), "NoAuth") {
		t.Fatalf("Curator without the digest acquires = %v; want a NoAuth failure", err)
	}
	if _, err := with.Acquire(ctx, "m", 20*time.Second); err != nil {
		t.Fatalf("Curator with the digest acquires: %v", err)
	}
	if _, err := with.Release(ctx, "m"); err != nil {
		t.Fatal(err)
	}
}
