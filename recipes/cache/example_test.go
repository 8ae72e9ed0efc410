package cache_test

import (
	"context"
	"fmt"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Keep a subtree of configuration in memory: Start returns once it is
// loaded, reads never wait, and Events reports every later change.
func ExampleTreeCache() {
	client, stop, err := zkclient.NewWithServer() // a real ZooKeeper on 127.0.0.1 and a started client
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := client.Create(ctx, "/config/db/url", []byte("db-1:5432"), framework.CreatingParentContainersIfNeeded()); err != nil {
		fmt.Println(err)
		return
	}

	tree, err := cache.NewTreeCache(client, "/config", cache.WithMaxDepth(2))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := tree.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer tree.Close()
	if n, ok := tree.Current("/config/db/url"); ok {
		fmt.Printf("loaded: %s\n", n.Data)
	}

	if _, err := client.SetData(ctx, "/config/db/url", []byte("db-2:5432"), -1); err != nil {
		fmt.Println(err)
		return
	}
	for {
		select {
		case ev := <-tree.Events():
			if ev.Type == cache.NodeUpdated && ev.Node.Path == "/config/db/url" {
				fmt.Printf("updated: %s\n", ev.Node.Data)
				return
			}
		case <-ctx.Done():
			fmt.Println("no update:", ctx.Err())
			return
		}
	}
	// Output:
	// loaded: db-1:5432
	// updated: db-2:5432
}

// Follow the members of a group: the children of one node, with their data.
func ExamplePathChildrenCache() {
	client, stop, err := zkclient.NewWithServer()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, m := range []string{"a", "b"} {
		if _, err := client.Create(ctx, "/members/"+m, []byte("up"), framework.CreatingParentContainersIfNeeded()); err != nil {
			fmt.Println(err)
			return
		}
	}

	members, err := cache.NewPathChildrenCache(client, "/members")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := members.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer members.Close()
	for _, n := range members.Snapshot() {
		fmt.Println("member", n.Path)
	}

	if _, err := client.Create(ctx, "/members/c", []byte("up")); err != nil {
		fmt.Println(err)
		return
	}
	for {
		select {
		case ev := <-members.Events():
			if ev.Type == cache.NodeAdded && ev.Node.Path == "/members/c" {
				fmt.Println("joined", ev.Node.Path)
				return
			}
		case <-ctx.Done():
			fmt.Println("nobody joined:", ctx.Err())
			return
		}
	}
	// Output:
	// member /members/a
	// member /members/b
	// joined /members/c
}
