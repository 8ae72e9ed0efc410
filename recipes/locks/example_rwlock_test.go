package locks_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zkcurator/zkcurator/recipes/locks"
)

// Write, then downgrade to reading without letting another writer in between;
// an upgrade is refused at once.
func ExampleInterProcessReadWriteLock() {
	client, stop, err := exampleClient() // a real ZooKeeper on 127.0.0.1 and a client of it
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rw, err := locks.NewInterProcessReadWriteLock(client, "/locks/catalog")
	if err != nil {
		fmt.Println(err)
		return
	}

	if err := rw.WriteLock().Acquire(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("writing the catalog")

	// Downgrade: take the read lock while writing, then let go of the write lock.
	if err := rw.ReadLock().Acquire(ctx); err != nil {
		fmt.Println(err)
		return
	}
	if err := rw.WriteLock().Release(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("still reading:", rw.ReadLock().IsAcquiredInThisProcess())

	err = rw.WriteLock().Acquire(ctx)
	fmt.Println("upgrade refused:", errors.Is(err, locks.ErrUpgrade))

	if err := rw.ReadLock().Release(ctx); err != nil {
		fmt.Println(err)
	}
	// Output:
	// writing the catalog
	// still reading: true
	// upgrade refused: true
}
