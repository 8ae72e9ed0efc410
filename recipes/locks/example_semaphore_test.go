package locks_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/zkcurator/zkcurator/recipes/locks"
)

// At most three leases exist at once across every process using the path.
func ExampleInterProcessSemaphoreV2() {
	client, stop, err := exampleClient() // a real ZooKeeper on 127.0.0.1 and a client of it
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sem, err := locks.NewInterProcessSemaphoreV2(client, "/semaphores/exports", 3)
	if err != nil {
		fmt.Println(err)
		return
	}

	leases, err := sem.AcquireN(ctx, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("leases held:", len(leases))

	more, err := sem.TryAcquire(ctx, 2, 100*time.Millisecond) // only one is left
	fmt.Println("two more within 100ms:", more != nil, err)

	for _, l := range leases {
		if err := l.Close(ctx); err != nil {
			fmt.Println(err)
		}
	}
	// Output:
	// leases held: 2
	// two more within 100ms: false <nil>
}

// The limit lives in a node that Curator's SharedCount (or anyone writing a
// 4-byte big-endian integer) can change while processes wait.
func ExampleWithSharedCount() {
	client, stop, err := exampleClient() // a real ZooKeeper on 127.0.0.1 and a client of it
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The count node starts at 1 (the seed) if it does not exist yet.
	sem, err := locks.NewInterProcessSemaphoreV2(client, "/semaphores/crawlers", 1, locks.WithSharedCount("/config/max-crawlers"))
	if err != nil {
		fmt.Println(err)
		return
	}
	first, err := sem.Acquire(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer first.Close(ctx)

	second := make(chan *locks.Lease, 1)
	go func() {
		l, err := sem.Acquire(ctx) // waits: the limit is 1
		if err != nil {
			fmt.Println(err)
		}
		second <- l
	}()

	// Raise the limit to 2; the waiter wakes and gets its lease.
	if _, err := client.SetData(ctx, "/config/max-crawlers", binary.BigEndian.AppendUint32(nil, 2), -1); err != nil {
		fmt.Println(err)
		return
	}
	if l := <-second; l != nil {
		fmt.Println("second crawler admitted")
		l.Close(ctx)
	}
	// Output: second crawler admitted
}

// A lock that is not re-entrant and that any goroutine may release.
func ExampleInterProcessSemaphoreMutex() {
	client, stop, err := exampleClient() // a real ZooKeeper on 127.0.0.1 and a client of it
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	m, err := locks.NewInterProcessSemaphoreMutex(client, "/locks/nightly-report")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := m.Acquire(ctx); err != nil {
		fmt.Println(err)
		return
	}
	ok, err := m.TryAcquire(ctx, 100*time.Millisecond) // not re-entrant
	fmt.Println("acquired again through the same handle:", ok, err)

	done := make(chan error)
	go func() { done <- m.Release(ctx) }() // released by another goroutine
	fmt.Println("released elsewhere:", <-done)
	// Output:
	// acquired again through the same handle: false <nil>
	// released elsewhere: <nil>
}

// Work under a lease stops as soon as holding it is no longer certain: Lost
// closes on a connection in an error state, when the session that took the
// lease is gone, when the lease node is deleted, and on Close.
func ExampleLease_Lost() {
	client, stop, err := exampleClient() // a real ZooKeeper on 127.0.0.1 and a client of it
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sem, err := locks.NewInterProcessSemaphoreV2(client, "/semaphores/uploads", 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	lease, err := sem.Acquire(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	work, stopWork := context.WithCancel(ctx)
	defer stopWork()
	go func() {
		select {
		case <-lease.Lost():
			stopWork() // do not go on without the lease
		case <-work.Done():
		}
	}()

	// ... upload under the lease, with work as the context ...
	if err := lease.Close(ctx); err != nil {
		fmt.Println(err)
	}
	<-lease.Lost()
	fmt.Println("lease returned; Lost closed")
	// Output: lease returned; Lost closed
}
