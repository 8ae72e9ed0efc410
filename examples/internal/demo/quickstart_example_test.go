package demo_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/retry"
)

// The quick start of README.md, kept compiling and running here
// (TestReadmeQuickStart checks that the two stay the same).
func Example_quickStart() {
	client, err := framework.NewClient(os.Getenv("ZK_CONNECT"), retry.ExponentialBackoff{BaseSleep: time.Second, MaxRetries: 3})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	if err := client.Start(); err != nil {
		log.Fatal(err)
	}

	lock, err := locks.NewInterProcessMutex(client, "/locks/nightly-report")
	if err != nil {
		log.Fatal(err)
	}
	if ok, err := lock.TryAcquire(context.Background(), 10*time.Second); !ok {
		log.Fatal("no lock within 10s: ", err) // err is nil on a plain timeout
	}
	defer lock.Release(context.Background())

	// Work only while the lock is certain, and hand the fencing token to the storage.
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go func() { <-lock.Lost(); stop() }()
	if err := writeReport(ctx, lock.FencingToken()); err != nil {
		log.Fatal(err)
	}
	// Output: report written with a fencing token
}

// writeReport stands for the work the lock protects: it stops when ctx ends
// and sends token with every write, so that the storage can refuse writes
// from a holder that has lost the lock.
func writeReport(ctx context.Context, token int64) error {
	if token <= 0 {
		return errors.New("no fencing token: the lock is not held")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	fmt.Println("report written with a fencing token")
	return nil
}
