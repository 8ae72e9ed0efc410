package queue_test

import (
	"context"
	"fmt"
	"time"

	"github.com/zkcurator/zkcurator/recipes/queue"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// A producer and a lock-path consumer of one Curator-compatible queue: an
// item is deleted only after the consumer returned nil.
func ExampleDistributedQueue() {
	client, stop, err := zkclient.NewWithServer() // a real ZooKeeper on 127.0.0.1 and a started client
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	type job struct{ ID int }
	done := make(chan job)
	consumer, err := queue.NewDistributedQueue(client, "/queues/jobs", queue.JSON[job](),
		queue.WithLockPath("/queues/jobs-locks"), // the same for every consumer of the queue
		queue.WithConsumer(func(ctx context.Context, j job) error {
			done <- j
			return nil
		}))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := consumer.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer consumer.Close()

	producer, err := queue.NewDistributedQueue(client, "/queues/jobs", queue.JSON[job]())
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := producer.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer producer.Close()
	if _, err := producer.PutMulti(ctx, []job{{1}, {2}}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println((<-done).ID, (<-done).ID)
	// Output: 1 2
}
