package queue

import (
	"sync"
	"testing"
)

func TestTakeAllReturnsWhatWasPushedInOrder(t *testing.T) {
	q := New[int]()
	for i := 0; i < 5; i++ {
		q.Push(i)
	}
	select {
	case <-q.Ready():
	default:
		t.Fatal("no wake-up after pushes")
	}
	got := q.TakeAll()
	if len(got) != 5 {
		t.Fatalf("TakeAll = %v, want 0..4", got)
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("TakeAll = %v, want 0..4 in order", got)
		}
	}
	if q.Len() != 0 || len(q.TakeAll()) != 0 {
		t.Fatal("items left after TakeAll")
	}
}

func TestEditChangesItemsWithoutWakingTheConsumer(t *testing.T) {
	q := New[int]()
	q.Push(1)
	q.Push(2)
	<-q.Ready()
	q.Edit(func(items []int) []int { return append(items[:0], items[1]) })
	select {
	case <-q.Ready():
		t.Fatal("Edit woke the consumer: a consumer that edits as it takes would spin")
	default:
	}
	q.Wake()
	select {
	case <-q.Ready():
	default:
		t.Fatal("no wake-up after Wake")
	}
	if got := q.TakeAll(); len(got) != 1 || got[0] != 2 {
		t.Fatalf("after Edit, TakeAll = %v, want [2]", got)
	}
}

func TestConcurrentPushesAreAllTaken(t *testing.T) {
	q := New[int]()
	const producers, each = 8, 500
	var wg sync.WaitGroup
	for p := 0; p < producers; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				q.Push(i)
			}
		}()
	}
	taken := 0
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for finished := false; !finished; {
		select {
		case <-q.Ready():
		case <-done:
			finished = true
		}
		taken += len(q.TakeAll())
	}
	if taken != producers*each {
		t.Fatalf("took %d items, want %d", taken, producers*each)
	}
}
