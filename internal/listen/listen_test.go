package listen

import (
	"reflect"
	"sync"
	"testing"
)

func TestDeliverCallsListenersInRegistrationOrder(t *testing.T) {
	var s Set[int]
	var got []string
	s.Add(func(v int) { got = append(got, "a") })
	s.Add(func(v int) { got = append(got, "b") })
	s.Add(func(v int) { got = append(got, "c") })
	s.Deliver(1)
	if want := []string{"a", "b", "c"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}

func TestListenerRemovedByAnEarlierOneIsSkipped(t *testing.T) {
	var s Set[int]
	var stopB func()
	calledB := false
	s.Add(func(int) { stopB() })
	stopB = s.Add(func(int) { calledB = true })
	s.Deliver(1)
	if calledB {
		t.Fatal("a listener stopped by an earlier listener in the same delivery was called")
	}
	if n := s.Len(); n != 1 {
		t.Fatalf("Len = %d after one stop, want 1", n)
	}
}

func TestStopIsIdempotentAndStopsOnlyItsListener(t *testing.T) {
	var s Set[int]
	n1, n2 := 0, 0
	f := func(int) { n1++ }
	stop := s.Add(f)
	s.Add(func(int) { n2++ })
	stop()
	stop()
	s.Deliver(1)
	if n1 != 0 || n2 != 1 {
		t.Fatalf("calls after stop: stopped %d, other %d; want 0 and 1", n1, n2)
	}
}

func TestAddNilRegistersNothing(t *testing.T) {
	var s Set[int]
	stop := s.Add(nil)
	stop()
	if s.Len() != 0 {
		t.Fatal("Add(nil) registered a listener")
	}
	s.Deliver(1) // must not panic
}

func TestClearRemovesEveryListener(t *testing.T) {
	var s Set[int]
	called := false
	s.Add(func(int) { called = true })
	s.Clear()
	s.Deliver(1)
	if called || s.Len() != 0 {
		t.Fatalf("after Clear: called %v, Len %d", called, s.Len())
	}
}

func TestConcurrentAddStopDeliver(t *testing.T) {
	var s Set[int]
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				stop := s.Add(func(int) {})
				s.Deliver(1)
				stop()
			}
		}()
	}
	wg.Wait()
	if s.Len() != 0 {
		t.Fatalf("Len = %d after every stop, want 0", s.Len())
	}
}
