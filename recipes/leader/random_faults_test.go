package leader_test

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/leader"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// interval is one term as a participant saw it: from Await's return to the
// moment its context was seen cancelled.
type interval struct {
	who        string
	token      int64
	start, end time.Time
}

// recorder collects the terms of all participants.
type recorder struct {
	mu    sync.Mutex
	terms []interval
}

// follow records l's terms until l is closed.
func (r *recorder) follow(who string, l *leader.LeaderLatch) {
	for {
		term, err := l.Await(context.Background())
		if err != nil {
			return // closed
		}
		start := time.Now()
		<-term.Done()
		r.mu.Lock()
		r.terms = append(r.terms, interval{who: who, token: term.Token, start: start, end: time.Now()})
		r.mu.Unlock()
	}
}

// randomFaultsSeconds is the fault phase of the randomized test; it goes on
// (up to three times as long) until minTerms terms have ended, since a random
// schedule may strike mostly followers.
const (
	randomFaultsSeconds = 10
	minTerms            = 3
)

// ended is the number of terms recorded so far.
func (r *recorder) ended() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.terms)
}

// Four latches, each behind its own proxy, under random faults for at least ten
// seconds: short and long partitions (the latter expire sessions), severed
// connections and restarts. No two participants lead at once unless one of
// them had already seen its term's context cancelled, tokens increase from
// term to term, and no node is left once all are closed.
func TestLatchRandomFaultsKeepOneLeader(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewSource(seed))
	srv := shared.Server(t)
	obs := zkclient.New(t, srv.ConnectString())
	const dir = "/latch/random"
	const n = 4

	type participant struct {
		name        string
		proxy       *zktest.Proxy
		client      *framework.Client
		latch       *leader.LeaderLatch
		restarts    int
		pausedUntil time.Time
	}
	var rec recorder
	var followers sync.WaitGroup
	start := func(p *participant) {
		p.latch = newLatch(t, p.client, dir, fmt.Sprintf("%s.%d", p.name, p.restarts))
		zktest.Must(t, p.latch.Start())
		followers.Add(1)
		go func(who string, l *leader.LeaderLatch) {
			defer followers.Done()
			rec.follow(who, l)
		}(p.latch.ID(), p.latch)
	}
	closeLatch := func(p *participant) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := p.latch.Close(ctx); err != nil {
			t.Errorf("close %s: %v", p.latch.ID(), err)
		}
	}
	ps := make([]*participant, n)
	for i := range ps {
		proxy := newProxy(t, srv.ConnectString())
		ps[i] = &participant{name: fmt.Sprintf("p%d", i), proxy: proxy,
			client: zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(shortSession))}
		start(ps[i])
	}

	counts := map[string]int{}
	deadline := time.Now().Add(randomFaultsSeconds * time.Second)
	longest := time.Now().Add(3 * randomFaultsSeconds * time.Second)
	for time.Now().Before(deadline) || (rec.ended() < minTerms && time.Now().Before(longest)) {
		time.Sleep(time.Duration(50+rnd.Intn(250)) * time.Millisecond) // the pace of faults, not a wait for a condition
		now := time.Now()
		for _, p := range ps {
			if !p.pausedUntil.IsZero() && now.After(p.pausedUntil) {
				p.proxy.Resume()
				p.pausedUntil = time.Time{}
			}
		}
		p := ps[rnd.Intn(n)]
		if !p.pausedUntil.IsZero() {
			continue
		}
		switch k := rnd.Intn(10); {
		case k < 3:
			counts["short pause"]++
			p.proxy.Pause()
			p.pausedUntil = now.Add(time.Duration(100+rnd.Intn(500)) * time.Millisecond)
		case k < 5:
			counts["long pause"]++
			p.proxy.Pause()
			p.pausedUntil = now.Add(shortSession + time.Duration(rnd.Intn(1500))*time.Millisecond)
		case k < 7:
			counts["sever"]++
			p.proxy.Sever()
		case k < 9:
			counts["restart"]++
			closeLatch(p)
			p.restarts++
			start(p)
		default:
			counts["quiet"]++
		}
	}
	for _, p := range ps {
		p.proxy.Resume()
	}
	// Someone leads again once the faults stop.
	zktest.Eventually(t, 20*time.Second, "a leader after the faults", func() bool {
		return slices.ContainsFunc(ps, func(p *participant) bool { return p.latch.HasLeadership() })
	})
	for _, p := range ps {
		closeLatch(p)
	}
	followers.Wait()
	zktest.Eventually(t, 2*shortSession+5*time.Second, "no node left", func() bool { return len(children(t, obs, dir)) == 0 })

	terms := rec.terms
	slices.SortFunc(terms, func(a, b interval) int { return a.start.Compare(b.start) })
	t.Logf("faults %v; %d terms", counts, len(terms))
	for _, x := range terms {
		t.Logf("%s token %d %s..%s", x.who, x.token, x.start.Format("05.000"), x.end.Format("05.000"))
	}
	if len(terms) < minTerms {
		t.Fatalf("only %d terms: the faults did not move leadership", len(terms))
	}
	for i, a := range terms {
		for _, b := range terms[i+1:] {
			if b.start.Before(a.end) && a.who != b.who {
				t.Errorf("%s (token %d, %v..%v) and %s (token %d, from %v) led at once",
					a.who, a.token, a.start.Format("05.000"), a.end.Format("05.000"), b.who, b.token, b.start.Format("05.000"))
			}
		}
		if i > 0 && a.token <= terms[i-1].token {
			t.Errorf("token %d of %s after %d of %s", a.token, a.who, terms[i-1].token, terms[i-1].who)
		}
	}
}
