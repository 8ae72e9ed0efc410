package locks_test

import (
	"context"
	"fmt"
	"time"

	"github.com/zkcurator/zkcurator/recipes/locks"
)

// Lock both accounts of a transfer, always in the same order, or neither.
func ExampleInterProcessMultiLock() {
	client, stop, err := exampleClient() // a real ZooKeeper on 127.0.0.1 and a client of it
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	from, err := locks.NewInterProcessMutex(client, "/accounts/1001")
	if err != nil {
		fmt.Println(err)
		return
	}
	to, err := locks.NewInterProcessMutex(client, "/accounts/2002")
	if err != nil {
		fmt.Println(err)
		return
	}
	both, err := locks.NewInterProcessMultiLock(from, to)
	if err != nil {
		fmt.Println(err)
		return
	}
	ok, err := both.TryAcquire(ctx, 5*time.Second)
	if err != nil || !ok {
		fmt.Println("not acquired:", err)
		return
	}
	fmt.Println("moving money between 1001 and 2002")
	if err := both.Release(ctx); err != nil {
		fmt.Println(err)
	}
	// Output: moving money between 1001 and 2002
}
