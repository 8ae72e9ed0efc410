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

// Settings every demo client shares unless a demo says otherwise.
const (
	sessionTimeout    = 4 * time.Second
	connectionTimeout = 5 * time.Second
	connectWait       = 15 * time.Second
	// namespaceRoot is the parent of every demo's namespace.
	namespaceRoot = "zkcurator-examples"
)

// retryPolicy is Curator's usual exponential backoff, with sleeps short
// enough for a demo.
var retryPolicy = retry.ExponentialBackoff{BaseSleep: 50 * time.Millisecond, MaxSleep: time.Second, MaxRetries: 10}

// stage is one demo's set-up: the ensemble, a namespace of its own (so that
// runs against a shared ensemble never meet), the clients it opened and the
// printer its story goes to.
type stage struct {
	connect string
	ns      string
	p       *printer

	mu      sync.Mutex
	clients []*framework.Client
}

func newStage(connect string, out io.Writer, name string) *stage {
	return &stage{
		connect: connect,
		ns:      fmt.Sprintf("%s/%s-%08x", namespaceRoot, name, rand.Uint32()),
		p:       newPrinter(out),
	}
}

// client returns a started, connected client in the stage's namespace,
// standing for one process; close closes it.
func (s *stage) client(ctx context.Context, opts ...framework.Option) (*framework.Client, error) {
	return s.clientAt(ctx, s.connect, opts...)
}

// clientAt is client for another address of the same ensemble (a proxy).
func (s *stage) clientAt(ctx context.Context, connect string, opts ...framework.Option) (*framework.Client, error) {
	all := append([]framework.Option{
		framework.WithNamespace(s.ns),
		framework.WithSessionTimeout(sessionTimeout),
		framework.WithConnectionTimeout(connectionTimeout),
	}, opts...)
	c, err := framework.NewClient(connect, retryPolicy, all...)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.clients = append(s.clients, c)
	s.mu.Unlock()
	if err := c.Start(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, connectWait)
	defer cancel()
	if err := c.BlockUntilConnected(ctx); err != nil {
		return nil, fmt.Errorf("connect to ZooKeeper at %s: %w", connect, err)
	}
	return c, nil
}

// clientsFor connects n clients at once, as n processes starting together.
func (s *stage) clientsFor(ctx context.Context, n int) ([]*framework.Client, error) {
	clients := make([]*framework.Client, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			clients[i], errs[i] = s.client(ctx)
		}()
	}
	wg.Wait()
	return clients, errors.Join(errs...)
}

// close closes every client of the stage, then removes the stage's
// namespace with a fresh client, so a run leaves nothing behind.
func (s *stage) close() {
	s.closeClients()
	ctx, cancel := context.WithTimeout(context.Background(), connectWait)
	defer cancel()
	if c, err := s.client(ctx); err == nil {
		_ = c.UsingNamespace("").Delete(ctx, "/"+s.ns, framework.DeletingChildrenIfNeeded(), framework.Quietly())
	}
	s.closeClients()
}

func (s *stage) closeClients() {
	s.mu.Lock()
	clients := s.clients
	s.clients = nil
	s.mu.Unlock()
	for _, c := range clients {
		_ = c.Close()
	}
}
