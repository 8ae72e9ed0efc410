// Command customdriver shows a LockInternalsDriver written by a user of
// zkcurator: holderDriver (driver.go) embeds the standard fair driver and
// overrides only CreatesTheLock, so that every contender's lock node says who
// created it (host name, process id, worker). Any process can then tell who
// holds a lock and who waits for it by reading the participants' nodes,
// which is what this program's "tool" client prints each time a worker takes
// the lock. It exits with status 1 if two workers ever hold the lock at once
// or if the first node in line does not name the worker that holds the lock.
//
//	go run ./examples/customdriver [-workers 4] [-rounds 2] [-hold 50ms]
//
// It uses the ensemble in ZK_CONNECT, or an embedded ZooKeeper when that is unset.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"path"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/retry"
)

func main() {
	workers := flag.Int("workers", 4, "workers, each with a client of its own (2..20)")
	rounds := flag.Int("rounds", 2, "times each worker takes the lock (1..20)")
	hold := flag.Duration("hold", 50*time.Millisecond, "how long a worker holds the lock (0..5s)")
	flag.Parse()
	cfg := config{Workers: *workers, Rounds: *rounds, Hold: *hold}
	// runProgram (setup.go) finds ZooKeeper, bounds the time and exits with
	// status 1 when run fails or its promise did not hold.
	runProgram(func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out, cfg)
	})
}

// config sizes a run.
type config struct {
	Workers int
	Rounds  int
	Hold    time.Duration
}

func (c config) validate() error {
	switch {
	case c.Workers < 2 || c.Workers > 20:
		return fmt.Errorf("workers %d: want 2..20", c.Workers)
	case c.Rounds < 1 || c.Rounds > 20:
		return fmt.Errorf("rounds %d: want 1..20", c.Rounds)
	case c.Hold < 0 || c.Hold > 5*time.Second:
		return fmt.Errorf("hold %v: want 0..5s", c.Hold)
	}
	return nil
}

const (
	lockPath       = "/jobs/report"
	sessionTimeout = 4 * time.Second
	// queueWait bounds how long a holder waits for the others to queue up
	// before the table is printed.
	queueWait = 2 * time.Second
)

var retryPolicy = retry.ExponentialBackoff{BaseSleep: 50 * time.Millisecond, MaxSleep: time.Second, MaxRetries: 10}

// errInvariant is matched (errors.Is) by the error run returns when the
// promise it demonstrates did not hold; other errors mean it could not run.
var errInvariant = errors.New("invariant violated")

// run lets cfg.Workers workers take the lock cfg.Rounds times each. Every
// holder has the tool client print who holds and who waits, read from the
// lock nodes. It returns an error matching errInvariant when exclusion
// failed or the table's first node did not name the holder.
func run(ctx context.Context, connect string, out io.Writer, cfg config) (err error) {
	if err := cfg.validate(); err != nil {
		return err
	}
	ns := fmt.Sprintf("zkcurator-examples/customdriver-%08x", rand.Uint32())
	var clients []*framework.Client
	defer func() { err = errors.Join(err, cleanUp(clients, ns)) }()
	for range cfg.Workers + 1 {
		c, err := connect1(ctx, connect, ns)
		if c != nil {
			clients = append(clients, c)
		}
		if err != nil {
			return err
		}
	}
	tool := &tool{client: clients[cfg.Workers], out: out}
	fmt.Fprintf(out, "%d workers take %s %d times each; their driver writes who they are into their lock nodes.\n",
		cfg.Workers, lockPath, cfg.Rounds)

	var (
		inside, overlaps, misnamed, holds atomic.Int32
		wanting                           atomic.Int32 // workers that will still ask for the lock
		wg                                sync.WaitGroup
	)
	wanting.Store(int32(cfg.Workers))
	errs := make([]error, cfg.Workers)
	for w := range cfg.Workers {
		who, err := thisProcess(w + 1)
		if err != nil {
			return err
		}
		m, err := locks.NewInterProcessMutex(clients[w], lockPath, locks.WithDriver(holderDriver{who: who}))
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 1; r <= cfg.Rounds; r++ {
				if err := m.Acquire(ctx); err != nil {
					errs[w] = fmt.Errorf("worker %d: acquire: %w", who.Worker, err)
					return
				}
				if inside.Add(1) != 1 {
					overlaps.Add(1)
				}
				holds.Add(1)
				first, err := tool.show(ctx, fmt.Sprintf("worker %d holds the lock (round %d of %d)", who.Worker, r, cfg.Rounds), int(wanting.Load()))
				if err == nil && first != who {
					misnamed.Add(1)
					fmt.Fprintf(out, "  !! the first node names %v, but worker %d holds the lock\n", first, who.Worker)
				}
				if r == cfg.Rounds {
					wanting.Add(-1)
				}
				sleep(ctx, cfg.Hold)
				inside.Add(-1)
				if rerr := m.Release(ctx); rerr != nil || err != nil {
					errs[w] = errors.Join(err, rerr)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	left, err := tool.show(ctx, "all workers are done", 0)
	if err != nil {
		return err
	}

	var broken []string
	if left != (identity{}) {
		broken = append(broken, fmt.Sprintf("a node of %v was left behind", left))
	}
	if n := overlaps.Load(); n != 0 {
		broken = append(broken, fmt.Sprintf("%d times a worker took the lock while another held it", n))
	}
	if n := misnamed.Load(); n != 0 {
		broken = append(broken, fmt.Sprintf("%d times the first node did not name the holder", n))
	}
	if got, want := holds.Load(), int32(cfg.Workers*cfg.Rounds); got != want {
		broken = append(broken, fmt.Sprintf("%d holds, want %d", got, want))
	}
	if len(broken) > 0 {
		return fmt.Errorf("%w: %v", errInvariant, broken)
	}
	fmt.Fprintf(out, "OK: %d holds, one at a time, and the first node in line always named its holder\n", holds.Load())
	return nil
}

// tool is what an operator would run beside the workers: a client of its
// own that reads the lock's participants and the identities in their nodes.
type tool struct {
	client *framework.Client
	out    io.Writer
}

type participant struct {
	node string
	who  identity
}

// show waits (up to queueWait) until the lock has want participants, then
// prints them in lock order, the holder first, and returns the holder's
// identity (the zero identity when there is none).
func (t *tool) show(ctx context.Context, title string, want int) (identity, error) {
	var list []participant
	deadline := time.Now().Add(queueWait)
	for {
		var err error
		if list, err = t.participants(ctx); err != nil {
			return identity{}, err
		}
		if len(list) >= want || time.Now().After(deadline) {
			break
		}
		sleep(ctx, 10*time.Millisecond)
	}
	var b []byte
	b = fmt.Appendf(b, "%s; the lock nodes say:\n", title)
	if len(list) == 0 {
		b = fmt.Appendf(b, "  (no contenders)\n")
	}
	for i, p := range list {
		role := "waits"
		if i == 0 {
			role = "HOLDS"
		}
		b = fmt.Appendf(b, "  %-5s  %-32s  %s\n", role, p.who, protection.Strip(path.Base(p.node)))
	}
	if _, err := t.out.Write(b); err != nil {
		return identity{}, err
	}
	if len(list) == 0 {
		return identity{}, nil
	}
	return list[0].who, nil
}

// participants returns the lock's contenders in lock order with the
// identities their nodes carry; a node that goes away meanwhile is skipped.
func (t *tool) participants(ctx context.Context) ([]participant, error) {
	m, err := locks.NewInterProcessMutex(t.client, lockPath)
	if err != nil {
		return nil, err
	}
	nodes, err := m.ParticipantNodes(ctx)
	if err != nil {
		return nil, err
	}
	list := make([]participant, 0, len(nodes))
	for _, n := range nodes {
		data, _, err := t.client.GetData(ctx, n)
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var who identity
		if err := json.Unmarshal(data, &who); err != nil {
			return nil, fmt.Errorf("lock node %s holds %q, not an identity: %w", n, data, err)
		}
		list = append(list, participant{node: n, who: who})
	}
	return list, nil
}

// connect1 returns a started, connected client in namespace ns.
func connect1(ctx context.Context, connect, ns string) (*framework.Client, error) {
	c, err := framework.NewClient(connect, retryPolicy,
		framework.WithNamespace(ns), framework.WithSessionTimeout(sessionTimeout))
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return c, err
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := c.BlockUntilConnected(ctx); err != nil {
		return c, fmt.Errorf("connect to ZooKeeper at %s: %w", connect, err)
	}
	return c, nil
}

// cleanUp removes the run's namespace and closes every client.
func cleanUp(clients []*framework.Client, ns string) error {
	var err error
	if len(clients) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err = clients[len(clients)-1].UsingNamespace("").Delete(ctx, "/"+ns,
			framework.DeletingChildrenIfNeeded(), framework.Quietly())
	}
	for _, c := range clients {
		_ = c.Close()
	}
	return err
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
