package cache_test

import (
	"context"
	"fmt"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Follow a subtree as Curator 5 users do: a listener built from callbacks,
// told of each change with the node before and after.
func ExampleCuratorCache() {
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

	changed := make(chan string, 1)
	listener, err := cache.NewListener().
		ForInitialized(func() { fmt.Println("loaded") }).
		ForChanges(func(old, n cache.Node) { changed <- fmt.Sprintf("%s: %s -> %s", n.Path, old.Data, n.Data) }).
		Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	cc, err := cache.NewCuratorCache(client, "/config")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cc.Close()
	cc.Listen(listener)
	if err := cc.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}

	if _, err := client.SetData(ctx, "/config/db/url", []byte("db-2:5432"), -1); err != nil {
		fmt.Println(err)
		return
	}
	select {
	case c := <-changed:
		fmt.Println(c)
	case <-ctx.Done():
		fmt.Println("no change:", ctx.Err())
	}
	// Output:
	// loaded
	// /config/db/url: db-1:5432 -> db-2:5432
}
