package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
)

// namespaceRoot is the parent of every demo's namespace.
const namespaceRoot = "zkcurator-examples"

// cleanupWait bounds the removal of a demo's namespace.
const cleanupWait = 15 * time.Second

// Stage is one demo's set-up: the ensemble, a namespace of its own (so that
// runs against a shared ensemble never meet) and the Printer its story goes
// to. Close removes everything the demo left under the namespace.
type Stage struct {
	// Printer is where the demo tells its story.
	Printer *Printer

	connect string
	ns      string
}

// NewStage returns a stage for the demo called name on the ensemble at
// connect, printing to out; it does not connect.
func NewStage(connect string, out io.Writer, name string) *Stage {
	return &Stage{
		Printer: NewPrinter(out),
		connect: connect,
		ns:      fmt.Sprintf("%s/%s-%08x", namespaceRoot, name, rand.Uint32()),
	}
}

// Namespace is the namespace the demo's clients work in
// (framework.WithNamespace), unique to this run.
func (s *Stage) Namespace() string { return s.ns }

// Close removes the stage's namespace with a client of its own. Call it once
// the demo's clients are closed.
func (s *Stage) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupWait)
	defer cancel()
	c, err := framework.NewClient(s.connect, retry.ExponentialBackoff{BaseSleep: 50 * time.Millisecond, MaxSleep: time.Second, MaxRetries: 10})
	if err != nil {
		return
	}
	defer c.Close()
	if c.Start() != nil || c.BlockUntilConnected(ctx) != nil {
		return
	}
	_ = c.Delete(ctx, "/"+s.ns, framework.DeletingChildrenIfNeeded(), framework.Quietly())
}

// ConnectAll calls connect n times at once, as n processes starting
// together would connect, and returns the clients in order. When any
// connect fails it closes the clients that did connect and returns the
// errors.
func ConnectAll(ctx context.Context, n int, connect func(context.Context) (*framework.Client, error)) ([]*framework.Client, error) {
	clients := make([]*framework.Client, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			clients[i], errs[i] = connect(ctx)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, c := range clients {
			if c != nil {
				_ = c.Close()
			}
		}
		return nil, err
	}
	return clients, nil
}
