// Command leader shows a singleton job with LeaderLatch: three report
// schedulers, each with a client of its own as three processes would have,
// run for leader; only the leader runs the job, writing each report with its
// fencing token. The leader is killed, and another scheduler takes over once
// ZooKeeper expires the dead one's session. It exits with status 1 if two
// schedulers ever led at once, the takeover took longer than the session
// timeout allows, or a token did not grow.
//
//	go run ./examples/leader [-processes 3] [-session-timeout 1s] [-every 150ms]
//
// It uses the ensemble in ZK_CONNECT, or an embedded ZooKeeper when that is
// unset. Each scheduler reaches ZooKeeper through a local proxy in front of
// the first address in ZK_CONNECT, so that the demo can cut a dead leader's
// traffic. Read run for the schedulers (a client and a LeaderLatch each,
// Start, Participants, Close) and job.go for what a leader does with its
// term: Await, the term's fencing token, and stopping when the term is done.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/leader"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

func main() {
	processes := flag.Int("processes", 3, "number of schedulers, each with its own client (2..9)")
	session := flag.Duration("session-timeout", time.Second, "the schedulers' session timeout (400ms..10s)")
	every := flag.Duration("every", 150*time.Millisecond, "how often the leader runs the report job")
	flag.Parse()
	cfg := config{Processes: *processes, SessionTimeout: *session, Every: *every}
	// runProgram (setup.go) finds ZooKeeper, bounds the time and exits with
	// status 1 when run fails or its promise did not hold.
	runProgram(func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out, cfg)
	})
}

// dir is the latch every scheduler runs for.
const dir = "/jobs/report-scheduler"

// expiryMargin is what a takeover may take beyond the dead leader's session
// timeout: the server expires sessions on tick boundaries, then the next
// participant's watch fires.
const expiryMargin = 2 * time.Second

// run shows a singleton job across processes with LeaderLatch: report
// schedulers run for election, only the leader runs the job, and it writes
// each report with its term's fencing token. The leader is killed (its
// process stops and its traffic with it, as kill -9 would): once ZooKeeper
// expires its session another scheduler takes over, within the session
// timeout. It fails with errInvariant if two schedulers led at once,
// the takeover took longer than the session timeout allows, a token did not
// increase or a report was refused.
func run(ctx context.Context, connect string, out io.Writer, cfg config) error {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	first, _, _ := strings.Cut(connect, ",")
	st := newStage(connect, out, "leader")
	defer st.Close()
	p := st.Printer
	p.Title("leader: one report scheduler among %d runs the job; when it dies another takes over", cfg.Processes)

	store := &fencedStore{}
	v := &verdict{}
	var mu sync.Mutex
	var tenures []tenure
	record := func(t tenure) {
		mu.Lock()
		tenures = append(tenures, t)
		mu.Unlock()
	}

	scheds := make([]*scheduler, cfg.Processes)
	defer func() {
		for _, s := range scheds {
			if s != nil {
				s.kill()
				<-s.done
				s.client.Close()
				s.proxy.Close()
			}
		}
	}()
	for i := range scheds {
		proxy, err := zktest.NewProxy(strings.TrimSpace(first))
		if err != nil {
			return err
		}
		c, err := newClient(ctx, proxy.Addr(), st.Namespace(), cfg.SessionTimeout)
		if err != nil {
			proxy.Close()
			return err
		}
		name := fmt.Sprintf("scheduler-%d", i+1)
		l, err := leader.NewLeaderLatch(c, dir, name)
		if err == nil {
			err = l.Start()
		}
		if err != nil {
			c.Close()
			proxy.Close()
			return err
		}
		jobCtx, kill := context.WithCancel(ctx)
		s := &scheduler{name: name, proxy: proxy, client: c, latch: l, kill: kill, done: make(chan struct{})}
		scheds[i] = s
		go func() {
			defer close(s.done)
			runJob(jobCtx, p, s, store, cfg.Every, v, record)
		}()
		if i == 0 {
			p.Say("%s starts (session timeout %v) and runs for leader of %s", name, c.SessionTimeout(), dir)
			if _, err := l.Await(ctx); err != nil {
				return err
			}
		} else {
			p.Say("%s starts and queues", name)
		}
	}
	var ps []leader.Participant
	err = waitUntil(ctx, 15*time.Second, "every scheduler queued", func(ctx context.Context) (bool, error) {
		var err error
		ps, err = scheds[0].latch.Participants(ctx)
		return len(ps) == cfg.Processes, err
	})
	if err != nil {
		return err
	}
	var line []string
	for _, pt := range ps {
		line = append(line, pt.ID)
	}
	p.Say("participants, leader first: %s", strings.Join(line, ", "))
	if err := sleep(ctx, 4*cfg.Every); err != nil {
		return err
	}

	victim := scheds[0]
	p.Say("%s is killed: the process stops, and with it all its traffic", victim.name)
	killedAt := time.Now()
	victim.kill()
	<-victim.done
	victim.proxy.Pause()

	var next leader.Term
	var nextName string
	err = waitUntil(ctx, cfg.SessionTimeout*2+expiryMargin+5*time.Second, "another scheduler leads", func(ctx context.Context) (bool, error) {
		for _, s := range scheds[1:] {
			if s.latch.HasLeadership() {
				short, cancel := context.WithTimeout(ctx, time.Second)
				defer cancel()
				t, err := s.latch.Await(short)
				next, nextName = t, s.name
				return err == nil, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return err
	}
	took := time.Since(killedAt)
	sessionLimit := victim.client.SessionTimeout() + expiryMargin
	p.Say("%s took over %v after the kill (ZooKeeper expired the dead leader's session)", nextName, took.Round(10*time.Millisecond))
	v.Expect(took <= sessionLimit, "the takeover took %v, more than the session timeout allows (%v)", took, sessionLimit)
	p.Say("%s runs the job with token %d, above the dead leader's", nextName, next.Token)
	if err := sleep(ctx, 4*cfg.Every); err != nil {
		return err
	}

	for _, s := range scheds {
		s.kill()
		<-s.done
	}
	// Bring the dead scheduler's network back only to let it leave cleanly.
	victim.proxy.Resume()
	for _, s := range scheds {
		closeCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
		err := s.latch.Close(closeCtx)
		cancel()
		if err != nil {
			return fmt.Errorf("%s: close: %w", s.name, err)
		}
	}

	mu.Lock()
	defer mu.Unlock()
	checkTenures(v, tenures)
	p.Say("the report store holds %q", store.Read())
	return v.Conclude(p, "one scheduler at a time ran the job, the takeover came within the session timeout, tokens only grew")
}

// newClient connects one client, as one process would: Curator's exponential
// backoff for retries, the given session timeout, and the demo's namespace under
// which every path is resolved. Start returns at once; BlockUntilConnected
// waits (here at most 15s) for the first connection.
func newClient(ctx context.Context, connect, namespace string, sessionTimeout time.Duration) (*framework.Client, error) {
	client, err := framework.NewClient(connect,
		retry.ExponentialBackoff{BaseSleep: 50 * time.Millisecond, MaxSleep: time.Second, MaxRetries: 10},
		framework.WithNamespace(namespace),
		framework.WithSessionTimeout(sessionTimeout),
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

// config sets up the demo.
type config struct {
	// Processes is how many schedulers take part; 2 to 9, 3 when zero.
	Processes int
	// SessionTimeout is the session timeout the schedulers ask for; 400ms
	// to 10s, 1s when zero. The leader is taken over within it (plus the
	// server's expiry tick) once it dies.
	SessionTimeout time.Duration
	// Every is how often the leader runs the report job; 150ms when zero.
	Every time.Duration
}

func (c config) withDefaults() (config, error) {
	if c.Processes == 0 {
		c.Processes = 3
	}
	if c.SessionTimeout == 0 {
		c.SessionTimeout = time.Second
	}
	if c.Every == 0 {
		c.Every = 150 * time.Millisecond
	}
	switch {
	case c.Processes < 2 || c.Processes > 9:
		return c, fmt.Errorf("demo: Processes %d is outside 2..9", c.Processes)
	case c.SessionTimeout < 400*time.Millisecond || c.SessionTimeout > 10*time.Second:
		return c, fmt.Errorf("demo: SessionTimeout %v is outside 400ms..10s", c.SessionTimeout)
	case c.Every < 10*time.Millisecond || c.Every > 5*time.Second:
		return c, fmt.Errorf("demo: Every %v is outside 10ms..5s", c.Every)
	}
	return c, nil
}
