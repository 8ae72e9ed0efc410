package demo

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/leader"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// LeaderConfig sets up the leader demo.
type LeaderConfig struct {
	// Processes is how many schedulers take part; 2 to 9, 3 when zero.
	Processes int
	// SessionTimeout is the session timeout the schedulers ask for; 400ms
	// to 10s, 1s when zero. The leader is taken over within it (plus the
	// server's expiry tick) once it dies.
	SessionTimeout time.Duration
	// Every is how often the leader runs the report job; 150ms when zero.
	Every time.Duration
}

func (c LeaderConfig) withDefaults() (LeaderConfig, error) {
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

// expiryMargin is what a takeover may take beyond the dead leader's session
// timeout: the server expires sessions on tick boundaries, then the next
// participant's watch fires.
const expiryMargin = 2 * time.Second

// scheduler is one process running the report job while it leads.
type scheduler struct {
	name   string
	proxy  *zktest.Proxy
	client *framework.Client
	latch  *leader.LeaderLatch
	kill   context.CancelFunc // ends the job loop at once, as the process dying would
	done   chan struct{}
}

// schedTerm is one stretch of a scheduler's leadership as the demo saw it.
type schedTerm struct {
	who        string
	token      int64
	start, end time.Time
}

// Leader shows a singleton job across processes with LeaderLatch: three
// report schedulers run for election, only the leader runs the job, and it
// writes each report with its term's fencing token. The leader is killed
// (its process stops and its traffic with it, as kill -9 would): once
// ZooKeeper expires its session another scheduler takes over, within the
// session timeout. It fails with ErrInvariant if two schedulers led at once,
// the takeover took longer than the session timeout allows, a token did not
// increase or a report was refused.
//
// Each scheduler reaches ZooKeeper through a zktest.Proxy in front of the
// first address in connect.
func Leader(ctx context.Context, connect string, out io.Writer, cfg LeaderConfig) error {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	first, _, _ := strings.Cut(connect, ",")
	st := newStage(connect, out, "leader")
	defer st.close()
	p := st.p
	p.title("leader: one report scheduler among %d runs the job; when it dies another takes over", cfg.Processes)

	const dir = "/jobs/report-scheduler"
	store := &fencedStore{}
	v := &verdict{}
	var mu sync.Mutex
	var terms []schedTerm
	record := func(t schedTerm) {
		mu.Lock()
		terms = append(terms, t)
		mu.Unlock()
	}

	scheds := make([]*scheduler, cfg.Processes)
	defer func() {
		for _, s := range scheds {
			if s != nil {
				s.kill()
				<-s.done
				s.proxy.Close()
			}
		}
	}()
	for i := range scheds {
		proxy, err := zktest.NewProxy(strings.TrimSpace(first))
		if err != nil {
			return err
		}
		c, err := st.clientAt(ctx, proxy.Addr(), framework.WithSessionTimeout(cfg.SessionTimeout))
		if err != nil {
			proxy.Close()
			return err
		}
		name := fmt.Sprintf("scheduler-%d", i+1)
		l := leader.NewLeaderLatch(c, dir, name)
		if err := l.Start(); err != nil {
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
			p.say("%s starts (session timeout %v) and runs for leader of %s", name, c.SessionTimeout(), dir)
			if _, err := l.Await(ctx); err != nil {
				return err
			}
		} else {
			p.say("%s starts and queues", name)
		}
	}
	var ps []leader.Participant
	err = waitUntil(ctx, connectWait, "every scheduler queued", func(ctx context.Context) (bool, error) {
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
	p.say("participants, leader first: %s", strings.Join(line, ", "))
	if err := sleepCtx(ctx, 4*cfg.Every); err != nil {
		return err
	}

	victim := scheds[0]
	p.say("%s is killed: the process stops, and with it all its traffic", victim.name)
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
	p.say("%s took over %v after the kill (ZooKeeper expired the dead leader's session)", nextName, took.Round(10*time.Millisecond))
	v.expect(took <= sessionLimit, "the takeover took %v, more than the session timeout allows (%v)", took, sessionLimit)
	p.say("%s runs the job with token %d, above the dead leader's", nextName, next.Token)
	if err := sleepCtx(ctx, 4*cfg.Every); err != nil {
		return err
	}

	for _, s := range scheds {
		s.kill()
		<-s.done
	}
	// Bring the dead scheduler's network back only to let it leave cleanly.
	victim.proxy.Resume()
	for _, s := range scheds {
		closeCtx, cancel := context.WithTimeout(ctx, connectWait)
		err := s.latch.Close(closeCtx)
		cancel()
		if err != nil {
			return fmt.Errorf("%s: close: %w", s.name, err)
		}
	}

	mu.Lock()
	defer mu.Unlock()
	checkTerms(v, terms)
	p.say("the report store holds %q", store.read())
	return v.conclude(p, "one scheduler at a time ran the job, the takeover came within the session timeout, tokens only grew")
}

// runJob runs the report job whenever s leads, until ctx ends.
func runJob(ctx context.Context, p *printer, s *scheduler, store *fencedStore, every time.Duration, v *verdict, record func(schedTerm)) {
	for {
		term, err := s.latch.Await(ctx)
		if err != nil {
			return
		}
		start := time.Now()
		p.say("%s leads (fencing token %d) and starts the report job", s.name, term.Token)
		reports := 0
		tick := time.NewTicker(every)
	job:
		for {
			select {
			case <-tick.C:
				reports++
				err := store.write(term.Token, fmt.Sprintf("report #%d by %s", reports, s.name))
				v.expect(err == nil, "%s's report was refused: %v", s.name, err)
			case <-term.Done():
				p.say("%s: leadership ended (%v) after %d reports; the job stops", s.name, context.Cause(term.Context()), reports)
				break job
			case <-ctx.Done():
				break job
			}
		}
		tick.Stop()
		record(schedTerm{who: s.name, token: term.Token, start: start, end: time.Now()})
		if ctx.Err() != nil {
			return
		}
	}
}

// checkTerms expects terms that never overlap and tokens that grow.
func checkTerms(v *verdict, terms []schedTerm) {
	var led []schedTerm
	for _, t := range terms {
		if t.token != 0 {
			led = append(led, t)
		}
	}
	for i, a := range led {
		for _, b := range led[i+1:] {
			if a.start.Before(b.end) && b.start.Before(a.end) {
				v.expect(false, "%s and %s led at once", a.who, b.who)
			}
		}
	}
	ordered := slices.Clone(led)
	slices.SortFunc(ordered, func(a, b schedTerm) int { return a.start.Compare(b.start) })
	for i := 1; i < len(ordered); i++ {
		v.expect(ordered[i].token > ordered[i-1].token, "token %d of %s is not above %d of %s",
			ordered[i].token, ordered[i].who, ordered[i-1].token, ordered[i-1].who)
	}
	v.expect(len(led) >= 2, "only %d terms: no takeover was seen", len(led))
}

// sleepCtx waits for d or ctx.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
