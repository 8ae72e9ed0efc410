package demo

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestLineupEndsAtFirstFailure checks that a failing worker ends the
// lineup: waiting for it returns, no later worker starts, and Finish
// returns the failure. No ZooKeeper is involved: the workers are fakes.
func TestLineupEndsAtFirstFailure(t *testing.T) {
	line := NewLineup(context.Background(), NewPrinter(nil))
	boom := errors.New("boom")
	line.Start(1, func(context.Context) error { return boom })
	done := make(chan struct{})
	go func() {
		defer close(done)
		line.AwaitInLine(1, nil)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("AwaitInLine(1) still waits for a worker that failed")
	}
	line.Start(2, func(context.Context) error {
		t.Error("worker 2 started after the lineup failed")
		return nil
	})
	line.AwaitInLine(2, func(context.Context) ([]string, error) {
		t.Error("AwaitInLine asked for the nodes after the lineup failed")
		return nil, nil
	})
	if res, err := line.Finish(); !errors.Is(err, boom) || res != nil {
		t.Errorf("Finish = %v, %v; want nil and the worker's error", res, err)
	}
}

// TestLineupRecordsOrders checks the happy path with fake workers that
// "hold" one after another: worker 1 keeps the lock until Finish, the
// arrival and acquisition orders are recorded.
func TestLineupRecordsOrders(t *testing.T) {
	line := NewLineup(context.Background(), NewPrinter(nil))
	var inLine []string // the fake lock's queue, as ParticipantNodes would list it
	turn := make([]chan struct{}, 4)
	for i := range turn {
		turn[i] = make(chan struct{})
	}
	for n := 1; n <= 3; n++ {
		inLine = append(inLine, WorkerName(n))
		line.Start(n, func(ctx context.Context) error {
			if n > 1 {
				<-turn[n-1] // the worker before has released
			}
			line.Acquired(n, fmt.Sprintf("/locks/x/lock-%010d", n))()
			close(turn[n])
			return nil
		})
		line.AwaitInLine(n, func(context.Context) ([]string, error) { return inLine, nil })
	}
	select {
	case <-turn[1]:
		t.Fatal("worker 1 released before everyone was in line and Finish was called")
	default:
	}
	res, err := line.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if OrderString(res.Arrival) != "1 2 3" || OrderString(res.Acquired) != "1 2 3" {
		t.Errorf("arrival %v, acquired %v; want 1 2 3 both", res.Arrival, res.Acquired)
	}
	if err := CheckFair(res, 3).Err(); err != nil {
		t.Errorf("CheckFair: %v", err)
	}
}
