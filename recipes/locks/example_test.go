package locks_test

import (
	"context"
	"fmt"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// Acquire with a bound, do the work while watching Lost, and hand the
// fencing token to the storage the lock protects.
func ExampleInterProcessMutex() {
	srv, err := zktest.NewServer() // a real ZooKeeper on 127.0.0.1
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	client, err := framework.NewClient(srv.ConnectString(), retry.ExponentialBackoff{BaseSleep: 100 * time.Millisecond, MaxRetries: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	if err := client.Start(); err != nil {
		fmt.Println(err)
		return
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	mutex, err := locks.NewInterProcessMutex(client, "/locks/orders")
	if err != nil {
		fmt.Println(err)
		return
	}
	ok, err := mutex.TryAcquire(ctx, 5*time.Second)
	if err != nil || !ok {
		fmt.Println("not acquired:", err)
		return
	}
	defer mutex.Release(context.Background())

	token := mutex.FencingToken()
	select {
	case <-mutex.Lost():
		fmt.Println("lost the lock: stop writing")
	default:
		fmt.Println("holding the lock, fencing token > 0:", token > 0)
	}
	// Output: holding the lock, fencing token > 0: true
}
