package interop

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/nodes"
	"github.com/zkcurator/zkcurator/testing/locktest"
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
		locktest.Eventually(t, 30*time.Second, "zkcurator sees "+want, func() bool {
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
		locktest.Eventually(t, 30*time.Second, fmt.Sprintf("%v: both nodes are made again", mode), func() bool {
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
