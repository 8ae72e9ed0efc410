package nodes_test

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/nodes"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Keep an ephemeral node alive across session losses and deletes; Close
// removes it.
func ExamplePersistentNode() {
	client, stop, err := zkclient.NewWithServer() // a real ZooKeeper on 127.0.0.1 and a started client
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := nodes.NewPersistentNode(client, "/workers/w1", framework.Ephemeral, []byte("idle"))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := n.Start(); err != nil {
		fmt.Println(err)
		return
	}
	defer n.Close(ctx)
	if err := n.WaitForInitialCreate(ctx); err != nil {
		fmt.Println(err)
		return
	}
	if err := n.SetData(ctx, []byte("busy")); err != nil { // kept for every re-creation too
		fmt.Println(err)
		return
	}
	data, _, err := client.GetData(ctx, n.Path())
	fmt.Println(n.Path(), string(data), err)
	// Output: /workers/w1 busy <nil>
}

// Join a group and see who else is in it.
func ExampleGroupMember() {
	client, stop, err := zkclient.NewWithServer()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var members []*nodes.GroupMember
	for _, id := range []string{"a", "b"} {
		m, err := nodes.NewGroupMember(client, "/groups/billing", id, []byte("host-"+id))
		if err != nil {
			fmt.Println(err)
			return
		}
		if err := m.Start(ctx); err != nil {
			fmt.Println(err)
			return
		}
		defer m.Close(ctx)
		members = append(members, m)
	}
	// a's view includes b once its cache has seen b's node.
	for deadline := time.Now().Add(10 * time.Second); len(members[0].CurrentMembers()) < 2 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	view := members[0].CurrentMembers()
	ids := make([]string, 0, len(view))
	for id := range view {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		fmt.Println(id, string(view[id]))
	}
	// Output:
	// a host-a
	// b host-b
}
