package locktest

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/zkcurator/zkcurator/recipes/locks"
)

// Contend runs each mutex on a goroutine of its own for rounds cycles of
// Acquire, a hold of hold recorded in check, and Release. It returns the
// first error of any contender once all have stopped.
func Contend(ctx context.Context, mutexes []*locks.InterProcessMutex, rounds int, hold time.Duration, check *Checker) error {
	var wg sync.WaitGroup
	errs := make(chan error, len(mutexes))
	for i, m := range mutexes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				if err := m.Acquire(ctx); err != nil {
					errs <- fmt.Errorf("contender %d, round %d: %w", i, r, err)
					return
				}
				exit := check.Enter()
				time.Sleep(hold) // hold so that an overlap would show
				exit()
				if err := m.Release(ctx); err != nil {
					errs <- fmt.Errorf("contender %d, round %d: release: %w", i, r, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}
