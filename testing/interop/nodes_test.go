package interop

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/nodes"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// The kinds NodesCommands.java prints.
const (
	kindMembers = "MEMBERS" // <handle> <id=data,... or ->
	kindCreated = "CREATED" // <handle> <actual path>
)

// showMembers prints a view as NodesCommands.java does: id=data, sorted,
// comma-separated, "-" when empty.
func showMembers(view map[string][]byte) string {
	var parts []string
	for id, data := range view {
		parts = append(parts, id+"="+string(data))
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ",")
}

// TestGroupMemberAcrossLanguages has a Curator GroupMember and a zkcurator
// GroupMember in one group: each sees the other's member and data, a data
// change, and the other's leaving.
func TestGroupMemberAcrossLanguages(t *testing.T) {
	const group = "/interop/group"
	srv := startZooKeeper(t)
	gc := newGoClient(t, srv.ConnectString())
	java := StartHelper(t, srv.ConnectString())
	ctx := testContext(t, 60*time.Second)

	if _, err := java.Do(ctx, KindOK, "nodes.member", "j", group, "java-1", "from-java"); err != nil {
		t.Fatal(err)
	}
	g, err := nodes.NewGroupMember(gc, group, "go-1", []byte("from-go"))
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer g.Close(context.Background())

	javaSees := func(want string) {
		t.Helper()
		var got string
		for deadline := time.Now().Add(30 * time.Second); got != want; {
			if time.Now().After(deadline) {
				t.Fatalf("Curator never saw %s; last saw %s", want, got)
			}
			e, err := java.Do(ctx, kindMembers, "nodes.members", "j")
			if err != nil {
				t.Fatal(err)
			}
			if got = e.Field(1); got != want {
				time.Sleep(20 * time.Millisecond)
			}
		}
	}
	goSees := func(want string) {
		t.Helper()
		zktest.Eventually(t, 30*time.Second, "zkcurator sees "+want, func() bool {
			return showMembers(g.CurrentMembers()) == want
		})
	}
	both := "go-1=from-go,java-1=from-java"
	javaSees(both)
	goSees(both)

	if err := g.SetThisData(ctx, []byte("go-changed")); err != nil {
		t.Fatal(err)
	}
	if _, err := java.Do(ctx, KindOK, "nodes.setdata", "j", "java-changed"); err != nil {
		t.Fatal(err)
	}
	changed := "go-1=go-changed,java-1=java-changed"
	javaSees(changed)
	goSees(changed)

	if _, err := java.Do(ctx, KindOK, "nodes.close", "j"); err != nil {
		t.Fatal(err)
	}
	goSees("go-1=go-changed")
	if id := nodes.IDFromPath(group + "/java-1"); id != "java-1" {
		t.Fatalf("IDFromPath of Curator's member node: %q", id)
	}
}

// TestPersistentNodeNamesMatchCurator starts a Curator PersistentNode and a
// zkcurator PersistentNode in the same protected mode, each in a fresh
// parent: their names are the same but for the protected id, and when an
// operator deletes both, each is made again at its old name (same id, same
// sequence), as Curator 5.4 does.
func TestPersistentNodeNamesMatchCurator(t *testing.T) {
	srv := startZooKeeper(t)
	gc := newGoClient(t, srv.ConnectString())
	admin := newGoClient(t, srv.ConnectString())
	java := StartHelper(t, srv.ConnectString())
	ctx := testContext(t, 90*time.Second)
	modes := []framework.CreateMode{framework.EphemeralSequential, framework.PersistentSequential, framework.Ephemeral, framework.Persistent}
	for i, mode := range modes {
		base := "/interop/pn/" + mode.String()
		handle := fmt.Sprintf("pn%d", i)
		e, err := java.Do(ctx, kindCreated, "nodes.persistent", handle, mode.String(), "true", base+"/java/n-", "j", "30000")
		if err != nil {
			t.Fatal(err)
		}
		javaFirst := e.Field(1)
		n, err := nodes.NewPersistentNode(gc, base+"/go/n-", mode, []byte("g"), nodes.WithProtection())
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Start(); err != nil {
			t.Fatal(err)
		}
		defer n.Close(context.Background())
		if err := n.WaitForInitialCreate(ctx); err != nil {
			t.Fatal(err)
		}
		goFirst := n.Path()
		jName, gName := lastElem(javaFirst), lastElem(goFirst)
		if !protection.IsProtected(jName) || !protection.IsProtected(gName) {
			t.Fatalf("%v: Curator's %s and ours %s are not both protected", mode, jName, gName)
		}
		if protection.Strip(jName) != protection.Strip(gName) {
			t.Fatalf("%v: Curator names %s, zkcurator %s", mode, jName, gName)
		}

		for _, p := range []string{javaFirst, goFirst} {
			if err := admin.Delete(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		zktest.Eventually(t, 30*time.Second, fmt.Sprintf("%v: both nodes are made again", mode), func() bool {
			j, _ := admin.Exists(ctx, javaFirst)
			g, _ := admin.Exists(ctx, goFirst)
			return j != nil && g != nil
		})
		for _, dir := range []string{base + "/java", base + "/go"} {
			ch, _, err := admin.Children(ctx, dir)
			if err != nil || len(ch) != 1 {
				t.Fatalf("%v: %s holds %v (%v), want one node", mode, dir, ch, err)
			}
		}
		if _, err := java.Do(ctx, KindOK, "nodes.close", handle); err != nil {
			t.Fatal(err)
		}
	}
}

func lastElem(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

// TestPersistentNodeTakesOverAStandingNodeAsCuratorDoes puts a Curator
// PersistentNode and a zkcurator one, unprotected, each where a node of
// another session stands already: both take a persistent node over in
// either mode, and another session's ephemeral node in a persistent mode,
// keeping its kind and setting their data; both Close calls delete it. The
// one difference is the session rule: in an ephemeral mode Curator takes
// another session's ephemeral node over too, where zkcurator waits it out.
func TestPersistentNodeTakesOverAStandingNodeAsCuratorDoes(t *testing.T) {
	srv := startZooKeeper(t)
	gc := newGoClient(t, srv.ConnectString())
	other := newGoClient(t, srv.ConnectString())
	admin := newGoClient(t, srv.ConnectString())
	java := StartHelper(t, srv.ConnectString())
	ctx := testContext(t, 120*time.Second)
	for i, tc := range []struct {
		standing, mode framework.CreateMode
		goWaits        bool
	}{
		{framework.Persistent, framework.Ephemeral, false},
		{framework.Ephemeral, framework.Persistent, false},
		{framework.Persistent, framework.Persistent, false},
		{framework.Ephemeral, framework.Ephemeral, true},
	} {
		base := fmt.Sprintf("/interop/over/%v-in-%v", tc.standing, tc.mode)
		javaPath, goPath := base+"/java", base+"/go"
		owners := map[string]int64{}
		for _, p := range []string{javaPath, goPath} {
			if _, err := other.Create(ctx, p, []byte("old"), framework.WithMode(tc.standing), framework.CreatingParentsIfNeeded()); err != nil {
				t.Fatal(err)
			}
			st, err := admin.Exists(ctx, p)
			if err != nil || st == nil {
				t.Fatalf("%s: %+v (%v)", p, st, err)
			}
			owners[p] = st.EphemeralOwner
		}
		handle := fmt.Sprintf("over%d", i)
		e, err := java.Do(ctx, kindCreated, "nodes.persistent", handle, tc.mode.String(), "false", javaPath, "j", "10000")
		if err != nil {
			t.Fatalf("%s: Curator: %v", base, err)
		}
		if e.Field(1) != javaPath {
			t.Fatalf("%s: Curator keeps %s", base, e.Field(1))
		}
		n, err := nodes.NewPersistentNode(gc, goPath, tc.mode, []byte("g"))
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Start(); err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		err = n.WaitForInitialCreate(wctx)
		cancel()
		switch {
		case tc.goWaits && (!errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "another session")):
			t.Fatalf("%s: zkcurator's initial create over another session's ephemeral node: %v; want it waited out", base, err)
		case !tc.goWaits && err != nil:
			t.Fatalf("%s: zkcurator: %v", base, err)
		}
		for p, want := range map[string]string{javaPath: "j", goPath: "g"} {
			if tc.goWaits && p == goPath {
				want = "old"
			}
			data, st, err := admin.GetData(ctx, p)
			if err != nil {
				t.Fatalf("%s: %s: %v", base, p, err)
			}
			if string(data) != want || st.EphemeralOwner != owners[p] {
				t.Fatalf("%s: %s holds %q, owner 0x%x; want %q, owner 0x%x", base, p, data, st.EphemeralOwner, want, owners[p])
			}
		}
		if _, err := java.Do(ctx, KindOK, "nodes.close", handle); err != nil {
			t.Fatal(err)
		}
		if err := n.Close(ctx); err != nil {
			t.Fatal(err)
		}
		for p, gone := range map[string]bool{javaPath: true, goPath: !tc.goWaits} {
			st, err := admin.Exists(ctx, p)
			if err != nil || (st == nil) != gone {
				t.Fatalf("%s: after close %s is %+v (%v); want gone=%v", base, p, st, err, gone)
			}
		}
	}
}
