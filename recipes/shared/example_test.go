package shared_test

import (
	"context"
	"fmt"
	"time"

	"github.com/zkcurator/zkcurator/recipes/shared"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Share a count among processes: Start seeds the node when it is missing,
// TrySet writes only over the version it read, and Changes reports every
// value the count takes, in order.
func ExampleSharedCount() {
	client, stop, err := zkclient.NewWithServer() // a real ZooKeeper on 127.0.0.1 and a started client
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	workers, err := shared.NewSharedCount(client, "/pools/workers", 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := workers.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer workers.Close()
	seen := workers.VersionedValue()
	fmt.Println("workers:", seen.Value)

	ok, err := workers.TrySet(ctx, seen.Value*2, seen.Version)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("doubled:", ok)
	ok, err = workers.TrySet(ctx, 1, seen.Version) // the version has moved on
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("set over a stale version:", ok)

	select {
	case v := <-workers.Changes():
		fmt.Println("change seen:", v.Value)
	case <-ctx.Done():
		fmt.Println("no change seen:", ctx.Err())
	}
	// Output:
	// workers: 4
	// doubled: true
	// set over a stale version: false
	// change seen: 8
}
