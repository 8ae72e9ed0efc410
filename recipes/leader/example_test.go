package leader_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zkcurator/zkcurator/recipes/leader"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Join an election, wait for leadership, and do the work under the term's
// context, which is cancelled the moment leadership is no longer certain.
func ExampleLeaderLatch() {
	client, stop, err := zkclient.NewWithServer() // a real ZooKeeper on 127.0.0.1 and a started client
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	latch, err := leader.NewLeaderLatch(client, "/elections/scheduler", "scheduler-1")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := latch.Start(); err != nil {
		fmt.Println(err)
		return
	}
	defer latch.Close(context.Background())

	term, err := latch.Await(ctx)
	if err != nil {
		fmt.Println("not leading:", err)
		return
	}
	select {
	case <-term.Done():
		fmt.Println("leadership lost:", context.Cause(term.Context()))
	default:
		fmt.Println("leading, fencing token > 0:", term.Token > 0)
	}
	// Output: leading, fencing token > 0: true
}

// Run a function while this participant leads; Close ends the term and
// waits for the function to return.
func ExampleLeaderSelector() {
	client, stop, err := zkclient.NewWithServer()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()

	leading := make(chan string, 1)
	ended := make(chan error, 1)
	selector, err := leader.NewLeaderSelector(client, "/elections/reports", "worker-1",
		func(ctx context.Context, term leader.Term) error {
			leading <- term.Node
			<-ctx.Done() // work until leadership ends
			ended <- context.Cause(ctx)
			return nil
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := selector.Start(); err != nil {
		fmt.Println(err)
		return
	}

	select {
	case <-leading:
		fmt.Println("worker-1 leads")
	case <-time.After(30 * time.Second):
		fmt.Println("no leadership within 30s")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := selector.Close(ctx); err != nil {
		fmt.Println(err)
		return
	}
	select { // Close has returned, so the function has too
	case cause := <-ended:
		fmt.Println("term ended by Close:", errors.Is(cause, leader.ErrClosed))
	default:
		fmt.Println("the function never ran")
	}
	// Output:
	// worker-1 leads
	// term ended by Close: true
}
