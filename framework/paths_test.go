package framework_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// totalRequests counts every non-ping request the proxy has seen.
func totalRequests(p *zktest.Proxy) int64 {
	var n int64
	for _, op := range []zktest.Op{zktest.OpCreate, zktest.OpDelete, zktest.OpExists, zktest.OpGetData,
		zktest.OpSetData, zktest.OpGetACL, zktest.OpSetACL, zktest.OpGetChildren, zktest.OpSync,
		zktest.OpGetChildren2, zktest.OpCheck, zktest.OpMulti, zktest.OpCreate2,
		zktest.OpCreateContainer, zktest.OpCreateTTL, zktest.OpSetAuth, zktest.OpSetWatches} {
		n += p.RequestCount(op)
	}
	return n
}

func TestValidatePath(t *testing.T) {
	valid := []string{"/", "/a", "/a/b", "/a.b/..c/...", "/zk-_:@$", "/\u00e9t\u00e9", "/\uffef"}
	for _, p := range valid {
		if err := framework.ValidatePath(p); err != nil {
			t.Errorf("ValidatePath(%q) = %v, want nil", p, err)
		}
	}
	invalid := []string{"", "a", "a/b", "/a/", "//", "/a//b", "/.", "/..", "/a/./b", "/a/../b", "/a/.",
		"/a\x00b", "/a\x01", "/a\x1f", "/a\x7f", "/a\u0085", "/a\u009f", "/a\ud7ff\ue000", "/a\uf8ff",
		"/a\ufff0", "/a\uffff", "/a\U0001F600", "/a\xff"}
	for _, p := range invalid {
		err := framework.ValidatePath(p)
		if !errors.Is(err, framework.ErrInvalidPath) {
			t.Errorf("ValidatePath(%q) = %v, want ErrInvalidPath", p, err)
			continue
		}
		if !strings.Contains(err.Error(), strconv.Quote(p)) {
			t.Errorf("ValidatePath(%q) error %q does not name the path", p, err)
		}
	}
}

func TestJoinPath(t *testing.T) {
	for _, tc := range [][3]string{{"/a", "b", "/a/b"}, {"/", "b", "/b"}, {"/a/b", "c", "/a/b/c"}} {
		if got := framework.JoinPath(tc[0], tc[1]); got != tc[2] {
			t.Errorf("JoinPath(%q, %q) = %q, want %q", tc[0], tc[1], got, tc[2])
		}
	}
}

// Bad paths fail before anything is sent.
func TestBadPathsSendNothing(t *testing.T) {
	p := zktest.StartProxy(t, sharedServer(t).ConnectString())
	c := newClient(t, p.Addr())
	ns := c.UsingNamespace("ns")
	ctx := testCtx(t)
	p.ResetCounts()
	const bad = "/a//b"
	checks := map[string]error{}
	_, checks["Create"] = c.Create(ctx, bad, nil)
	_, checks["Create trailing slash"] = c.Create(ctx, "/a/", nil)
	_, checks["Create namespaced"] = ns.Create(ctx, bad, nil, framework.CreatingParentsIfNeeded())
	checks["Delete"] = c.Delete(ctx, bad, framework.Guaranteed())
	_, checks["Exists"] = c.Exists(ctx, bad)
	_, _, checks["ExistsW"] = c.ExistsW(ctx, bad)
	_, _, checks["GetData"] = c.GetData(ctx, bad)
	_, _, _, checks["GetDataW"] = c.GetDataW(ctx, bad)
	_, checks["SetData"] = c.SetData(ctx, bad, nil, -1)
	_, _, checks["Children"] = c.Children(ctx, bad)
	_, _, _, checks["ChildrenW"] = c.ChildrenW(ctx, bad)
	checks["CreateContainers"] = c.CreateContainers(ctx, bad)
	_, checks["Transaction"] = c.Transaction(ctx, &zk.CreateRequest{Path: "/ok"}, &zk.DeleteRequest{Path: bad})
	for name, err := range checks {
		if !errors.Is(err, framework.ErrInvalidPath) {
			t.Errorf("%s: %v, want ErrInvalidPath", name, err)
		}
	}
	if n := totalRequests(p); n != 0 {
		t.Fatalf("%d requests reached the proxy for invalid paths", n)
	}

	// A sequential create may end in "/": the server appends the number.
	parent := testRoot(t)
	if _, err := c.Create(ctx, parent, nil); err != nil {
		t.Fatal(err)
	}
	got, err := c.Create(ctx, parent+"/", nil, framework.WithMode(framework.PersistentSequential))
	if err != nil || len(got) != len(parent)+11 {
		t.Fatalf("sequential create of %q: %q, %v", parent+"/", got, err)
	}
	if _, err := c.Exists(ctx, "/"); err != nil {
		t.Fatalf("Exists(/): %v", err)
	}
}
