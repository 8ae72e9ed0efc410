package atomic_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zkcurator/zkcurator/recipes/atomic"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Count across processes: each update reports the value before and after
// it, and a lost reply is reported, never retried into a double count.
func ExampleDistributedAtomicLong() {
	client, stop, err := zkclient.NewWithServer() // a real ZooKeeper on 127.0.0.1 and a started client
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	orders, err := atomic.NewDistributedAtomicLong(client, "/counters/orders")
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := 0; i < 3; i++ {
		v, err := orders.Increment(ctx)
		switch {
		case errors.Is(err, atomic.ErrOutcomeUnknown):
			fmt.Println("the increment may or may not have applied")
			return
		case err != nil:
			fmt.Println(err)
			return
		case !v.Succeeded:
			fmt.Println("too many conflicts; try later")
			return
		}
		fmt.Printf("%d -> %d\n", v.PreValue, v.PostValue)
	}
	v, err := orders.CompareAndSet(ctx, 2, 10) // the counter is 3, not 2
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("compare-and-set from 2 succeeded:", v.Succeeded)
	// Output:
	// 0 -> 1
	// 1 -> 2
	// 2 -> 3
	// compare-and-set from 2 succeeded: false
}
