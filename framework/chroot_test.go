package framework_test

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
)

// With a chroot in the connect string every path is relative to it, as in the
// Java client: creates, reads, returned paths, transactions and watch events.
func TestChroot(t *testing.T) {
	srv := sharedServer(t)
	raw := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	root := testRoot(t)
	if _, err := raw.Create(ctx, root, nil); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, srv.ConnectString()+root)

	got, err := c.Create(ctx, "/a/b", []byte("d"), framework.CreatingParentsIfNeeded())
	if err != nil || got != "/a/b" {
		t.Fatalf("Create = %q, %v; want /a/b", got, err)
	}
	if data, _, err := raw.GetData(ctx, root+"/a/b"); err != nil || !bytes.Equal(data, []byte("d")) {
		t.Fatalf("node on the server at %s/a/b: %q, %v", root, data, err)
	}
	if children, _, err := c.Children(ctx, "/"); err != nil || !slices.Equal(children, []string{"a"}) {
		t.Fatalf("Children(/) = %v, %v; want [a]", children, err)
	}
	seq, err := c.Create(ctx, "/", nil, framework.WithMode(framework.PersistentSequential))
	if err != nil || len(seq) != 11 {
		t.Fatalf("sequential Create of / = %q, %v; want a child of the chroot", seq, err)
	}
	res, err := c.Transaction(ctx, &zk.CreateRequest{Path: "/a/t", Data: []byte("1")})
	if err != nil || res[0].String != "/a/t" {
		t.Fatalf("Transaction = %+v, %v", res, err)
	}

	events := make(chan zk.Event, 8)
	stop := c.ListenNodeEvents(func(ev zk.Event) { events <- ev })
	defer stop()
	_, _, w, err := c.GetDataW(ctx, "/a/b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.SetData(ctx, root+"/a/b", []byte("e"), -1); err != nil {
		t.Fatal(err)
	}
	for name, ch := range map[string]<-chan zk.Event{"watch": w, "ListenNodeEvents": events} {
		select {
		case ev := <-ch:
			if ev.Type != zk.EventNodeDataChanged || ev.Path != "/a/b" {
				t.Errorf("%s event = %+v; want NodeDataChanged on /a/b", name, ev)
			}
		case <-ctx.Done():
			t.Fatalf("no %s event", name)
		}
	}
}

// A chroot that does not exist is never created: every operation fails with
// ErrNoChroot, naming it, without retrying, and works once it exists.
func TestMissingChroot(t *testing.T) {
	srv := sharedServer(t)
	raw := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	root := testRoot(t)
	c := newClient(t, srv.ConnectString()+root, framework.WithNamespace("ns"))

	_, err := c.Create(ctx, "/x", nil, framework.CreatingParentsIfNeeded())
	if !errors.Is(err, framework.ErrNoChroot) || !bytes.Contains([]byte(err.Error()), []byte(root)) {
		t.Fatalf("Create under a missing chroot: %v; want ErrNoChroot naming %q", err, root)
	}
	if _, err := c.Exists(ctx, "/x"); !errors.Is(err, framework.ErrNoChroot) {
		t.Fatalf("Exists under a missing chroot: %v; want ErrNoChroot", err)
	}
	if st, err := raw.Exists(ctx, root); err != nil || st != nil {
		t.Fatalf("the chroot was created: %+v, %v", st, err)
	}
	if _, err := raw.Create(ctx, root, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(ctx, "/x", nil); err != nil {
		t.Fatalf("Create once the chroot exists: %v", err)
	}
	if st, err := raw.Exists(ctx, root+"/ns/x"); err != nil || st == nil {
		t.Fatalf("node at %s/ns/x: %+v, %v", root, st, err)
	}
}

// A chroot composes with a namespace: the namespace root is made inside the
// chroot, and the ACL provider sees paths without the chroot, as Curator's does.
func TestChrootWithNamespace(t *testing.T) {
	srv := sharedServer(t)
	raw := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	root := testRoot(t)
	if _, err := raw.Create(ctx, root, nil); err != nil {
		t.Fatal(err)
	}
	var seen []string
	p := recordingACLProvider{seen: &seen}
	c := newClient(t, srv.ConnectString()+root, framework.WithNamespace("app"), framework.WithACLProvider(p))

	got, err := c.Create(ctx, "/x", []byte("d"))
	if err != nil || got != "/x" {
		t.Fatalf("Create = %q, %v", got, err)
	}
	st, err := raw.Exists(ctx, root+"/app")
	if err != nil || st == nil || st.EphemeralOwner != 0 {
		t.Fatalf("namespace root %s/app: %+v, %v", root, st, err)
	}
	if data, _, err := raw.GetData(ctx, root+"/app/x"); err != nil || string(data) != "d" {
		t.Fatalf("node at %s/app/x: %q, %v", root, data, err)
	}
	if !slices.Contains(seen, "/app/x") || !slices.Contains(seen, "/app") {
		t.Fatalf("ACL provider saw %q; want /app and /app/x (no chroot)", seen)
	}
	if data, _, err := c.UsingNamespace("").GetData(ctx, "/app/x"); err != nil || string(data) != "d" {
		t.Fatalf("GetData through a view without namespace (still in the chroot): %q, %v", data, err)
	}
}

// recordingACLProvider is the open ACL, recording the paths it is asked about.
type recordingACLProvider struct{ seen *[]string }

func (p recordingACLProvider) DefaultACL() []zk.ACL { return zk.WorldACL(zk.PermAll) }
func (p recordingACLProvider) ACLForPath(path string) []zk.ACL {
	*p.seen = append(*p.seen, path)
	return nil
}
