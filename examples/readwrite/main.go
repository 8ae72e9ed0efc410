// Command readwrite shows InterProcessReadWriteLock: readers hold the read
// lock together, a writer waits for them and then excludes everyone, and the
// writer downgrades to a reader without letting another writer in between.
// It exits with status 1 if any of that does not hold.
//
//	go run ./examples/readwrite [-readers 3]
//
// It uses the ensemble in ZK_CONNECT, or an embedded ZooKeeper when that is
// unset. Read run from the top: a client and a read/write lock per
// participant, ReadLock and WriteLock taken and released by actors
// (actor.go), the downgrade, and ErrUpgrade for a read holder that asks for
// the write lock.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/retry"
)

func main() {
	readers := flag.Int("readers", 3, "readers that hold the read lock together (2..20)")
	flag.Parse()
	cfg := config{Readers: *readers}
	// runProgram (setup.go) finds ZooKeeper, bounds the time and exits with
	// status 1 when run fails or its promise did not hold.
	runProgram(func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out, cfg)
	})
}

// lockPath is the read/write lock every participant shares.
const lockPath = "/locks/catalog"

// run shows InterProcessReadWriteLock, each participant with a client of
// its own: readers hold the read lock together; a writer waits for them and
// then excludes everyone; a reader asking meanwhile waits; the writer
// downgrades (takes the read lock, releases the write lock) and the waiting
// reader joins it while a second writer still waits. Asking for the write
// lock while holding only the read lock fails at once with ErrUpgrade. It
// fails with errInvariant when any of that does not hold.
func run(ctx context.Context, connect string, out io.Writer, cfg config) (err error) {
	cfg, err = cfg.withDefaults()
	if err != nil {
		return err
	}
	st := newStage(connect, out, "readwrite")
	defer st.Close()
	p := st.Printer
	p.Title("readwrite: %d readers, 2 writers and a late reader share one InterProcessReadWriteLock", cfg.Readers)

	clients, err := connectAll(ctx, cfg.Readers+3, func(ctx context.Context) (*framework.Client, error) {
		return newClient(ctx, connect, st.Namespace())
	})
	if err != nil {
		return err
	}
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()

	// One read/write lock per participant, on the same path.
	rws := make([]*locks.InterProcessReadWriteLock, len(clients))
	for i, c := range clients {
		if rws[i], err = locks.NewInterProcessReadWriteLock(c, lockPath); err != nil {
			return err
		}
	}
	readers := rws[:cfg.Readers]
	writer, lateReader, writer2 := rws[cfg.Readers], rws[cfg.Readers+1], rws[cfg.Readers+2]

	ctx, cancel := context.WithCancel(ctx)
	sec := &section{}
	v := &verdict{}
	var actors []*actor
	start := func(name, what string, m *locks.InterProcessMutex, exclusive bool) *actor {
		a := startActor(ctx, p, sec, name, what, m, exclusive)
		actors = append(actors, a)
		return a
	}
	defer func() {
		cancel()
		for _, a := range actors {
			if ferr := a.finish(handoffTimeout); ferr != nil && !errors.Is(ferr, context.Canceled) {
				err = errors.Join(err, ferr)
			}
		}
	}()
	inLine := func(n int, who string) error {
		return waitUntil(ctx, arrivalTimeout, who+" is in line", func(ctx context.Context) (bool, error) {
			children, _, err := clients[0].Children(ctx, lockPath)
			return len(children) == n, err
		})
	}

	var rActors []*actor
	for i, rw := range readers {
		rActors = append(rActors, start(fmt.Sprintf("reader %d", i+1), "read lock", rw.ReadLock(), false))
	}
	err = waitUntil(ctx, handoffTimeout, "all readers read together", func(context.Context) (bool, error) {
		return sec.Stats().Inside == cfg.Readers, nil
	})
	v.Expect(err == nil, "the readers never held the read lock together: %v", err)
	if err != nil {
		return v.Err()
	}
	p.Say("all %d readers hold the read lock at the same time", cfg.Readers)

	_, err = readers[0].WriteLock().TryAcquire(ctx, 0)
	p.Say("reader 1 asks for the write lock too: %v", err)
	v.Expect(errors.Is(err, locks.ErrUpgrade), "upgrading a read lock returned %v, want ErrUpgrade", err)

	w := start("writer 1", "write lock", writer.WriteLock(), true)
	if err := inLine(cfg.Readers+1, "writer 1"); err != nil {
		return err
	}
	p.Say("writer 1 asks for the write lock and waits behind the readers")
	for i, r := range rActors {
		if err := r.finish(handoffTimeout); err != nil {
			return err
		}
		if i < len(rActors)-1 {
			v.Expect(!w.holds(), "writer 1 got the write lock while %d readers still held the read lock", len(rActors)-1-i)
		}
	}
	if err := w.awaitAcquired(ctx, handoffTimeout); err != nil {
		return err
	}

	late := start("reader "+fmt.Sprint(cfg.Readers+1), "read lock", lateReader.ReadLock(), false)
	if err := inLine(2, late.name); err != nil {
		return err
	}
	p.Say("%s asks for the read lock and waits behind writer 1", late.name)
	w2 := start("writer 2", "write lock", writer2.WriteLock(), true)
	if err := inLine(3, "writer 2"); err != nil {
		return err
	}
	p.Say("writer 2 asks for the write lock and waits too")
	if err := showRWQueue(ctx, p, clients[0], lockPath); err != nil {
		return err
	}

	p.Say("writer 1 downgrades: it takes the read lock (granted at once: it holds the write lock) ...")
	w.leave() // writer 1 still holds the write lock; from here on it counts as a reader
	wr := start("writer 1", "read lock", writer.ReadLock(), false)
	if err := wr.awaitAcquired(ctx, handoffTimeout); err != nil {
		return err
	}
	v.Expect(!late.holds(), "%s got the read lock while writer 1 held the write lock", late.name)
	p.Say("... and releases the write lock, keeping the read lock")
	if err := w.finish(handoffTimeout); err != nil {
		return err
	}
	if err := late.awaitAcquired(ctx, handoffTimeout); err != nil {
		return err
	}
	inside := sec.Stats().Inside
	p.Say("%s now reads alongside writer 1; writer 2 still waits: %t", late.name, !w2.holds())
	v.Expect(inside == 2, "%d inside after the downgrade, want writer 1 and %s", inside, late.name)
	v.Expect(!w2.holds(), "writer 2 got the write lock while readers held the read lock")
	if err := showRWQueue(ctx, p, clients[0], lockPath); err != nil {
		return err
	}
	p.Say("(writer 1's read node took its write node's number, so writer 2 stayed behind it)")

	for _, a := range []*actor{wr, late} {
		if err := a.finish(handoffTimeout); err != nil {
			return err
		}
	}
	if err := w2.awaitAcquired(ctx, handoffTimeout); err != nil {
		return err
	}
	if err := w2.finish(handoffTimeout); err != nil {
		return err
	}

	stats := sec.Stats()
	v.Expect(len(stats.Violations) == 0, "exclusion broken: %v", stats.Violations)
	v.Expect(stats.MaxShared >= cfg.Readers, "at most %d readers held the read lock together, want %d", stats.MaxShared, cfg.Readers)
	return v.Conclude(p, "readers overlapped, writers were alone, the downgrade let no writer in between, the upgrade was refused")
}

// showRWQueue prints the read and write nodes under lockPath in lock order.
func showRWQueue(ctx context.Context, p *printer, c *framework.Client, lockPath string) error {
	children, _, err := c.Children(ctx, lockPath)
	if err != nil {
		return err
	}
	nodes := locks.SortedContenders(children, "", func(str, _ string) string {
		for _, name := range []string{"__READ__", "__WRIT__"} {
			if i := strings.LastIndex(str, name); i >= 0 {
				return str[i+len(name):]
			}
		}
		return str
	})
	short := make([]string, len(nodes))
	for i, n := range nodes {
		short[i] = shortNode(n)
	}
	p.Say("the nodes in ZooKeeper, in lock order: %s", strings.Join(short, " "))
	return nil
}

// newClient connects one client, as one process would: Curator's exponential
// backoff for retries, a session timeout, and the demo's namespace under
// which every path is resolved. Start returns at once; BlockUntilConnected
// waits (here at most 15s) for the first connection.
func newClient(ctx context.Context, connect, namespace string) (*framework.Client, error) {
	client, err := framework.NewClient(connect,
		retry.ExponentialBackoff{BaseSleep: 50 * time.Millisecond, MaxSleep: time.Second, MaxRetries: 10},
		framework.WithNamespace(namespace),
		framework.WithSessionTimeout(4*time.Second),
		framework.WithConnectionTimeout(5*time.Second))
	if err != nil {
		return nil, err
	}
	if err := client.Start(); err != nil {
		client.Close()
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := client.BlockUntilConnected(ctx); err != nil {
		client.Close()
		return nil, fmt.Errorf("connect to ZooKeeper at %s: %w", connect, err)
	}
	return client, nil
}

// config sizes the demo.
type config struct {
	// Readers is the number of readers that hold the read lock together;
	// 2 to 20, 3 when zero.
	Readers int
}

func (c config) withDefaults() (config, error) {
	if c.Readers == 0 {
		c.Readers = 3
	}
	if c.Readers < 2 || c.Readers > 20 {
		return c, fmt.Errorf("demo: Readers %d is outside 2..20", c.Readers)
	}
	return c, nil
}
