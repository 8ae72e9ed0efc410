package watch_test

import (
	"context"
	"fmt"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/watch"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Follow every change under a path with one recursive watch: the reset
// listener runs when the watch is set (and again after every reconnect),
// the place to read the tree afresh; the listener gets each change in the
// server's order.
func ExamplePersistentWatcher() {
	client, stop, err := zkclient.NewWithServer() // a real ZooKeeper on 127.0.0.1 and a started client
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w, err := watch.NewPersistentWatcher(client, "/config", true)
	if err != nil {
		fmt.Println(err)
		return
	}
	changes := make(chan framework.WatchEvent, 16)
	w.ListenReset(func() { fmt.Println("watch set: read /config again") })
	w.Listen(func(ev framework.WatchEvent) { changes <- ev })
	if err := w.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close(ctx)

	if _, err := client.Create(ctx, "/config/db/url", []byte("pg://db"), framework.CreatingParentsIfNeeded()); err != nil {
		fmt.Println(err)
		return
	}
	for range 3 {
		ev := <-changes
		fmt.Println(ev.Type, ev.Path)
	}
	// Output:
	// watch set: read /config again
	// EventNodeCreated /config
	// EventNodeCreated /config/db
	// EventNodeCreated /config/db/url
}
