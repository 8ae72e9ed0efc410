package lifecycle

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

var (
	errAlready = errors.New("x: already started")
	errNot     = errors.New("x: not started")
	errClosed  = errors.New("x: closed")
	errs       = &Errors{AlreadyStarted: errAlready, NotStarted: errNot, Closed: errClosed}
)

func TestStepsOnlyForward(t *testing.T) {
	l := New(errs)
	if err := l.Check("r"); !errors.Is(err, errNot) {
		t.Fatalf("Check before Start = %v, want NotStarted", err)
	}
	if err := l.Start("r"); err != nil {
		t.Fatalf("first Start: %v", err)
	}
	if err := l.Start("r"); !errors.Is(err, errAlready) || !strings.Contains(err.Error(), "r") {
		t.Fatalf("second Start = %v, want AlreadyStarted naming r", err)
	}
	if err := l.Check("r"); err != nil {
		t.Fatalf("Check while started: %v", err)
	}
	if first, was := l.Close(); !first || was != Started {
		t.Fatalf("first Close = %v, %v; want true, STARTED", first, was)
	}
	if first, was := l.Close(); first || was != Closed {
		t.Fatalf("second Close = %v, %v; want false, CLOSED", first, was)
	}
	if err := l.Start("r"); !errors.Is(err, errClosed) {
		t.Fatalf("Start after Close = %v, want Closed", err)
	}
	if err := l.Check("r"); !errors.Is(err, errClosed) {
		t.Fatalf("Check after Close = %v, want Closed", err)
	}
}

func TestCloseBeforeStartStaysClosed(t *testing.T) {
	l := New(errs)
	if first, was := l.Close(); !first || was != Latent {
		t.Fatalf("Close = %v, %v; want true, LATENT", first, was)
	}
	if err := l.Start(""); err != errClosed {
		t.Fatalf("Start after Close = %v, want the bare sentinel", err)
	}
}

func TestOneOfManyConcurrentStartsWins(t *testing.T) {
	l := New(errs)
	var wins atomic.Int32
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if l.Start("r") == nil {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d Starts succeeded, want 1", wins.Load())
	}
}

func TestStateNames(t *testing.T) {
	for s, want := range map[State]string{Latent: "LATENT", Started: "STARTED", Closed: "CLOSED", 7: "State(7)"} {
		if s.String() != want {
			t.Errorf("%d.String() = %q, want %q", int(s), s.String(), want)
		}
	}
}

func TestUnstartLetsAFailedStartBeTriedAgain(t *testing.T) {
	l := New(errs)
	if err := l.Start("r"); err != nil {
		t.Fatal(err)
	}
	if !l.Unstart() {
		t.Fatal("Unstart of a started lifecycle = false")
	}
	if err := l.Start("r"); err != nil {
		t.Fatalf("Start after Unstart: %v", err)
	}
	l.Close()
	if l.Unstart() {
		t.Fatal("Unstart after Close = true; a closed recipe must stay closed")
	}
	if l.State() != Closed {
		t.Fatalf("state %v after Unstart of a closed lifecycle", l.State())
	}
}
