package barriers_test

import (
	"context"
	"fmt"
	"time"

	"github.com/zkcurator/zkcurator/recipes/barriers"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Hold workers back until a coordinator removes the barrier.
func ExampleDistributedBarrier() {
	client, stop, err := zkclient.NewWithServer() // a real ZooKeeper on 127.0.0.1 and a started client
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	gate, err := barriers.NewDistributedBarrier(client, "/barriers/deploy")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := gate.Set(ctx); err != nil {
		fmt.Println(err)
		return
	}

	passed := make(chan error, 1)
	go func() { passed <- gate.Wait(ctx) }() // a worker, held back
	if err := gate.Remove(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("worker passed:", <-passed == nil)
	// Output: worker passed: true
}

// Start and finish a computation together: Enter returns once every member
// has entered, Leave once every member has left.
func ExampleDistributedDoubleBarrier() {
	client, stop, err := zkclient.NewWithServer()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const members = 3
	results := make(chan error, members)
	for i := 0; i < members; i++ {
		member, err := barriers.NewDistributedDoubleBarrier(client, "/barriers/batch", members)
		if err != nil {
			fmt.Println(err)
			return
		}
		go func() {
			if err := member.Enter(ctx); err != nil {
				results <- err
				return
			}
			// ... the work every member does at once ...
			results <- member.Leave(ctx)
		}()
	}
	done := 0
	for i := 0; i < members; i++ {
		if err := <-results; err != nil {
			fmt.Println(err)
			continue
		}
		done++
	}
	fmt.Println("members that entered and left together:", done)
	// Output: members that entered and left together: 3
}
