package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/leader"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// leaderEvent says that the participant name began a term at the instant at.
type leaderEvent struct {
	name string
	at   time.Time
}

// The two recipes of leader election.
const (
	kindLatch    = "latch"    // LeaderLatch
	kindSelector = "selector" // LeaderSelector, whose function leads until it is closed
)

// electorate is one side's participants of one recipe on one path, each a
// session of its own.
type electorate interface {
	// join starts the participant name through the ZooKeeper address addr.
	join(ctx context.Context, name, addr string) error
	// leave closes the participant's latch or selector, then its client, and
	// returns the instant just before the recipe's Close was called.
	leave(ctx context.Context, name string) (time.Time, error)
	// leaders delivers an event each time a participant begins a term.
	leaders() <-chan leaderEvent
}

// electionBench measures leader hand-offs among participants of a kind
// (LeaderLatch or LeaderSelector), handoffs times per run: from the leader's
// Close to the next leader's term or, with kill, from the moment the
// leader's connection is cut (its proxy paused, so that the server expires
// its session) to the next leader's term. A new participant joins after
// each hand-off, so there are always participants of them.
func electionBench(kind string, participants, handoffs int, kill bool) bench {
	recipe := map[string]string{kindLatch: "LeaderLatch", kindSelector: "LeaderSelector"}[kind]
	b := bench{
		recipe:  recipe + ": gap from the leader's Close to the next leader's term",
		label:   fmt.Sprintf("%s, %s", count(participants, "participant"), count(handoffs, "hand-off")),
		slug:    fmt.Sprintf("%s-p%d", kind, participants),
		metrics: []metric{{key: "gap_ms", header: "gap ms", format: "%.2f"}},
	}
	if kill {
		b.recipe = recipe + ": gap from the leader's connection cut to the next leader's term"
		b.slug += "-kill"
		b.metrics = []metric{
			{key: "gap_ms", header: "gap ms", format: "%.0f"},
			{key: "beyond_ms", header: "gap - session timeout, ms", format: "%.0f"},
		}
	}
	b.run = func(ctx context.Context, e *env, impl, path string) (sample, error) {
		var el electorate
		if impl == implCurator {
			el = curatorElectorate{c: e.curator, kind: kind, path: path}
		} else {
			ours := &ourElectorate{kind: kind, path: path, sessionTimeout: e.sessionTimeout, events: make(chan leaderEvent, 64), members: map[string]*member{}}
			defer ours.closeAll()
			el = ours
		}
		addrs := repeated(e.connect, participants)
		var proxies []*zktest.Proxy
		if kill {
			for i := range addrs {
				p, err := zktest.NewProxy(e.connect)
				if err != nil {
					return nil, err
				}
				defer p.Close()
				proxies = append(proxies, p)
				addrs[i] = p.Addr()
			}
		}
		gaps, err := handOff(ctx, el, addrs, handoffs, proxies, e.sessionTimeout/3)
		if err != nil {
			return nil, err
		}
		s := sample{"gap_ms": ms(median(gaps)), "handoffs": float64(len(gaps))}
		if kill {
			s["beyond_ms"] = s["gap_ms"] - float64(e.sessionTimeout.Milliseconds())
		}
		return s, nil
	}
	return b
}

// handOff starts one participant per address, then n times ends the
// leader's term and times the gap until another participant leads: by
// closing its latch or, when proxies are given (one per address), by pausing
// its proxy until the next term began. It returns the gaps in seconds.
//
// The server expires a session a timeout after the last packet it got, and
// both client libraries ping an idle session every third of its timeout or
// so: a cut at a fixed time after a session began would always meet the
// same phase of its pings and favour one library. So a cut comes after a
// random wait of up to jitter, which spreads it over that phase.
func handOff(ctx context.Context, el electorate, addrs []string, n int, proxies []*zktest.Proxy, jitter time.Duration) ([]float64, error) {
	drain(el.leaders())
	slot := map[string]int{} // participant -> its address
	for i, a := range addrs {
		name := "p" + strconv.Itoa(i)
		if err := el.join(ctx, name, a); err != nil {
			return nil, err
		}
		slot[name] = i
	}
	defer func() {
		for _, p := range proxies { // after an error, a cut may still hold
			p.Resume()
		}
		for name := range slot {
			el.leave(ctx, name)
		}
	}()
	first, err := nextLeader(ctx, el, slot, "")
	if err != nil {
		return nil, err
	}
	current := first.name
	var gaps []float64
	for h := range n {
		current = latest(el.leaders(), slot, current)
		i := slot[current]
		var cut time.Time
		if proxies != nil {
			if err := sleep(ctx, rand.N(jitter)); err != nil {
				return nil, err
			}
			cut = time.Now()
			proxies[i].Pause()
		} else if cut, err = el.leave(ctx, current); err != nil {
			return nil, err
		}
		next, err := nextLeader(ctx, el, slot, current)
		if err != nil {
			return nil, err
		}
		gaps = append(gaps, next.at.Sub(cut).Seconds())
		if proxies != nil {
			proxies[i].Resume()
			if _, err := el.leave(ctx, current); err != nil {
				return nil, err
			}
		}
		delete(slot, current)
		name := "p" + strconv.Itoa(len(addrs)+h)
		if err := el.join(ctx, name, addrs[i]); err != nil {
			return nil, err
		}
		slot[name] = i
		current = next.name
	}
	return gaps, nil
}

// nextLeader waits up to a minute for a term of a participant in slot other
// than not.
func nextLeader(ctx context.Context, el electorate, slot map[string]int, not string) (leaderEvent, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		select {
		case ev := <-el.leaders():
			if _, in := slot[ev.name]; in && ev.name != not {
				return ev, nil
			}
		case <-ctx.Done():
			return leaderEvent{}, fmt.Errorf("no new leader after %q: %w", not, ctx.Err())
		}
	}
}

// latest returns the participant in slot of the newest term already
// delivered, or current when none was: a participant that lost its
// connection for a moment on a loaded machine may have moved the lead.
func latest(events <-chan leaderEvent, slot map[string]int, current string) string {
	for {
		select {
		case ev := <-events:
			if _, in := slot[ev.name]; in {
				current = ev.name
			}
		default:
			return current
		}
	}
}

// drain discards the events already delivered (of an earlier run).
func drain(events <-chan leaderEvent) {
	for {
		select {
		case <-events:
		default:
			return
		}
	}
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func ms(seconds float64) float64 { return seconds * 1000 }

// curatorElectorate is the Curator helper's participants of a kind on path.
type curatorElectorate struct {
	c    *curator
	kind string
	path string
}

func (e curatorElectorate) join(ctx context.Context, name, addr string) error {
	_, err := e.c.do(ctx, "OK", "elect", e.kind, name, e.path, addr)
	return err
}

func (e curatorElectorate) leave(ctx context.Context, name string) (time.Time, error) {
	f, err := e.c.do(ctx, "CLOSED", "leave", name)
	if err != nil {
		return time.Time{}, err
	}
	nanos, err := strconv.ParseInt(f[len(f)-1], 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("CLOSED reply %q: %w", f, err)
	}
	return time.Unix(0, nanos), nil
}

func (e curatorElectorate) leaders() <-chan leaderEvent { return e.c.leaders }

// ourElectorate is zkcurator participants of a kind on path, in this
// process.
type ourElectorate struct {
	kind           string
	path           string
	sessionTimeout time.Duration
	events         chan leaderEvent
	members        map[string]*member
}

// member is one participant: its session and its latch or selector.
type member struct {
	client *framework.Client
	close  func(context.Context) error // the latch's or selector's Close
	done   chan struct{}               // closed when it can report no more terms
}

func (e *ourElectorate) join(ctx context.Context, name, addr string) error {
	c, err := connect(ctx, addr, e.sessionTimeout)
	if err != nil {
		return err
	}
	m := &member{client: c, done: make(chan struct{})}
	if e.kind == kindLatch {
		err = e.latch(m, name)
	} else {
		err = e.selector(m, name)
	}
	if err != nil {
		c.Close()
		return err
	}
	e.members[name] = m
	return nil
}

// latch starts m as a LeaderLatch participant.
func (e *ourElectorate) latch(m *member, name string) error {
	l, err := leader.NewLeaderLatch(m.client, e.path, name)
	if err == nil {
		err = l.Start()
	}
	if err != nil {
		return err
	}
	m.close = l.Close
	go func() {
		defer close(m.done)
		for t := range l.Leadership() { // closed by Close
			if t.Leader {
				e.report(name)
			}
		}
	}()
	return nil
}

// selector starts m as a LeaderSelector participant whose function leads
// until its term ends.
func (e *ourElectorate) selector(m *member, name string) error {
	s, err := leader.NewLeaderSelector(m.client, e.path, name, func(ctx context.Context, _ leader.Term) error {
		e.report(name)
		<-ctx.Done()
		return nil
	})
	if err == nil {
		err = s.Start()
	}
	if err != nil {
		return err
	}
	m.close = s.Close
	close(m.done) // Close returns once the function has
	return nil
}

// report sends name's term, stamped now, unless 64 are unread (then nobody
// is waiting for them).
func (e *ourElectorate) report(name string) {
	select {
	case e.events <- leaderEvent{name: name, at: time.Now()}:
	default:
	}
}

func (e *ourElectorate) leave(ctx context.Context, name string) (time.Time, error) {
	m, ok := e.members[name]
	if !ok {
		return time.Time{}, fmt.Errorf("no participant %q", name)
	}
	delete(e.members, name)
	at := time.Now()
	err := m.close(ctx)
	m.client.Close()
	<-m.done
	return at, err
}

func (e *ourElectorate) leaders() <-chan leaderEvent { return e.events }

// closeAll closes the participants still there.
func (e *ourElectorate) closeAll() {
	names := make([]string, 0, len(e.members))
	for n := range e.members {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		e.leave(context.Background(), n)
	}
}
