package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestTour runs the whole tour, as make demo does, against one real
// ZooKeeper, and checks that every demo passed within the time a newcomer
// is promised.
func TestTour(t *testing.T) {
	// Every step builds its example, and the cli step the tool: warm the
	// build cache first, so that the time measured is the tour's, not a
	// cold compiler's.
	warm := exec.Command("go", "build", "-buildvcs=false", "github.com/zkcurator/zkcurator/cmd/...", "github.com/zkcurator/zkcurator/examples/...")
	warm.Env = append(os.Environ(), "CGO_ENABLED=0") // as demo.Build builds, so that its cache is the one warmed
	if out, err := warm.CombinedOutput(); err != nil {
		t.Fatalf("build the examples and the tool: %v\n%s", err, out)
	}
	srv := zktest.StartServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out bytes.Buffer
	began := time.Now()
	if err := run(ctx, srv.ConnectString(), &out, tourSteps()); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	if took := time.Since(began); took > 3*time.Minute {
		t.Errorf("the tour took %v, want under three minutes", took)
	}
	for _, s := range tourSteps() {
		if !strings.Contains(out.String(), "  "+s.name+": ") {
			t.Errorf("output lacks the heading of %s", s.name)
		}
	}
	if n := strings.Count(out.String(), "s  OK: "); n != len(tourSteps()) {
		t.Errorf("%d demos reported OK, want %d:\n%s", n, len(tourSteps()), out.String())
	}
}

// TestTourGoesOnAfterAFailure checks that a failing demo fails the tour but
// does not stop the demos after it.
func TestTourGoesOnAfterAFailure(t *testing.T) {
	var ran []string
	fake := func(name string, err error) step {
		return step{name: name, about: "about " + name, run: func(context.Context, string, io.Writer) error {
			ran = append(ran, name)
			return err
		}}
	}
	boom := errors.New("boom")
	var out bytes.Buffer
	err := run(context.Background(), "127.0.0.1:1", &out, []step{fake("first", nil), fake("second", boom), fake("third", nil)})
	if err == nil || !strings.Contains(err.Error(), "1 of 3 demos failed or did not run: second") {
		t.Errorf("run = %v, want an error naming the failed demo", err)
	}
	if strings.Join(ran, " ") != "first second third" {
		t.Errorf("ran %v, want all three demos", ran)
	}
	if !strings.Contains(out.String(), "FAILED: boom") || !strings.Contains(out.String(), "third      ok") {
		t.Errorf("output does not show the failure and the later success:\n%s", out.String())
	}
}

// TestTourStopsWhenCancelled checks that an interrupted tour runs no more
// demos and reports those it did not run.
func TestTourStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	first := step{name: "first", run: func(context.Context, string, io.Writer) error { cancel(); return nil }}
	second := step{name: "second", run: func(context.Context, string, io.Writer) error {
		t.Error("the second demo ran after the tour was cancelled")
		return nil
	}}
	var out bytes.Buffer
	err := run(ctx, "127.0.0.1:1", &out, []step{first, second})
	if err == nil || !strings.Contains(err.Error(), "second") || !strings.Contains(out.String(), "second     not run") {
		t.Errorf("run = %v, output:\n%s\nwant the second demo reported as not run", err, out.String())
	}
}

// TestStepsNameExamples checks that every program the tour points the
// reader to (each demo's own, and customdriver) exists under examples/.
func TestStepsNameExamples(t *testing.T) {
	names := []string{"customdriver"}
	for _, s := range tourSteps() {
		names = append(names, s.name)
	}
	for _, name := range names {
		if _, err := os.Stat(filepath.Join("..", name, "main.go")); err != nil {
			t.Errorf("the tour names examples/%s: %v", name, err)
		}
	}
}

// TestInterruptedExampleCleansUp checks that cancelling a step interrupts
// the example it runs, which then exits at once and leaves nothing behind
// in ZooKeeper.
func TestInterruptedExampleCleansUp(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &watchWriter{marker: "everyone is in line", seen: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		done <- program("mutex", "-workers", "3", "-hold", "5s")(ctx, srv.ConnectString(), out)
	}()
	select {
	case <-out.seen:
	case err := <-done:
		t.Fatalf("the example ended before it was interrupted: %v\n%s", err, out.String())
	case <-time.After(2 * time.Minute):
		t.Fatalf("the example did not get everyone in line:\n%s", out.String())
	}
	cancel()
	began := time.Now()
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("an interrupted example succeeded:\n%s", out.String())
		}
	case <-time.After(stopWait + 5*time.Second):
		t.Fatalf("the example did not end within %v of the interrupt", stopWait)
	}
	if took := time.Since(began); took > 4*time.Second {
		t.Errorf("the example took %v to end after the interrupt; its hold is 5s, so it waited instead of stopping", took)
	}

	c, err := framework.NewClient(srv.ConnectString(), retry.OneTime{Sleep: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	cctx, ccancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer ccancel()
	left, _, err := c.Children(cctx, "/zkcurator-examples")
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("the interrupted example left %v behind", left)
	}
}

// watchWriter collects output and closes seen once marker has appeared.
type watchWriter struct {
	marker string
	seen   chan struct{}

	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *watchWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(b)
	if strings.Contains(w.buf.String(), w.marker) {
		select {
		case <-w.seen:
		default:
			close(w.seen)
		}
	}
	return n, err
}

func (w *watchWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}
