package campaign

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Report is the outcome of a campaign: its faults, its history and the
// checker's verdict.
type Report struct {
	Seed     uint64
	Duration time.Duration
	Kind     LockKind
	Faults   []Fault
	HealedAt time.Duration
	Holds    []Hold
	States   []StateChange
	Verdict  Verdict
}

// OK reports whether the campaign upheld every property.
func (r *Report) OK() bool { return r.Verdict.OK() }

// Summary is the campaign's one-line result; a void run (Verdict.Diverged:
// ZooKeeper lost its own consistency) says void=true after ok=false.
func (r *Report) Summary() string {
	v := &r.Verdict
	void := ""
	if v.Diverged {
		void = " void=true"
	}
	return fmt.Sprintf("CAMPAIGN seed=%d secs=%d faults=%d acquisitions=%d accepted=%d rejected_stale=%d stale_accepted=%d overlaps=%d orphans=%d ok=%t%s lock=%s",
		r.Seed, int(r.Duration.Round(time.Second)/time.Second), len(r.Faults), v.Acquisitions, v.Accepted, v.RejectedStale, v.StaleAccepted, v.Overlaps, v.Orphans, r.OK(), void, r.Kind) + faultFields(r.Faults) + v.counterFields() + v.extraFields()
}

// Details tells what the summary line leaves out: the lock, the writes
// without a verdict, the fault mix and when the last fault healed.
func (r *Report) Details() string {
	kinds := make(map[FaultKind]int)
	for _, f := range r.Faults {
		kinds[f.Kind]++
	}
	var mix []string
	for k := FaultKind(0); k < numFaultKinds; k++ {
		mix = append(mix, fmt.Sprintf("%s=%d", k, kinds[k]))
	}
	lostSeen := 0
	for i := range r.Holds {
		if r.Holds[i].LostAtExit {
			lostSeen++
		}
	}
	states := make(map[framework.ConnectionState]int)
	for _, s := range r.States {
		states[s.State]++
	}
	return fmt.Sprintf("lock=%s healed@%s holds_that_saw_lost=%d unapplied_unknown=%d faults{%s} client_states{SUSPENDED=%d LOST=%d RECONNECTED=%d}",
		r.Kind, fmtDur(r.HealedAt), lostSeen, r.Verdict.Unapplied, strings.Join(mix, " "),
		states[framework.Suspended], states[framework.Lost], states[framework.Reconnected])
}

// Tail returns the violations, then the last n events of the campaign
// (holds, faults and client state changes, in time order): what to read, with the seed, to replay a
// failure.
func (r *Report) Tail(n int) string {
	type line struct {
		at   time.Duration
		text string
	}
	var lines []line
	for i := range r.Holds {
		lines = append(lines, line{r.Holds[i].Enter, r.Holds[i].String()})
	}
	for i := range r.Faults {
		lines = append(lines, line{r.Faults[i].Start, r.Faults[i].String()})
	}
	for i := range r.States {
		lines = append(lines, line{r.States[i].At, r.States[i].String()})
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].at < lines[j].at })
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "replay with: make chaos SEED=%d SECS=%d\n", r.Seed, int(r.Duration/time.Second))
	for _, v := range r.Verdict.Violations {
		fmt.Fprintf(&b, "VIOLATION %s\n", v)
	}
	fmt.Fprintf(&b, "last %d events:\n", len(lines))
	for _, l := range lines {
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	return b.String()
}

// defaultRecovery is the part of Config.Recovery's default that lets every
// client, its session lost to the last fault, connect again and take its
// turn; the ensemble's election budget is added to it.
const defaultRecovery = 30 * time.Second

// Run runs one campaign against cluster, which must be healthy and must not
// have run a campaign of the same kind before, and returns its report. An error means the campaign could not be carried out (a
// client or member would not start, a fault could not be healed); a lock
// that broke its promise is a Report whose OK is false. Everything Run
// starts (proxies, clients, their goroutines) is gone when it returns.
func Run(ctx context.Context, cluster *zktest.Cluster, cfg Config) (*Report, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if cfg.Recovery == 0 {
		cfg.Recovery = defaultRecovery + cluster.ElectionBudget()
	}
	if cfg.Kind == Membership {
		return runMembership(ctx, cluster, cfg)
	}
	clk := newClock()
	p := newPaths(cfg.Kind)
	marks := logMarks(cluster)
	if err := setUp(ctx, cluster, p); err != nil {
		return nil, err
	}

	proxies, err := startProxies(cluster, cfg.Clients)
	defer closeProxies(proxies)
	if err != nil {
		return nil, err
	}
	history := &recorder{}
	var procs *contenders // the paused client processes' helper, built before any client runs
	if slices.Contains(cfg.Faults, PauseClientProcess) {
		if procs, err = buildContenders(ctx, cfg.Kind, cluster.ConnectString(), p, cfg.SessionTimeout, cfg.Clients, history, clk); err != nil {
			return nil, err
		}
		defer procs.close()
	}
	onState := func(client int, s framework.ConnectionState) {
		history.addState(StateChange{At: clk.now(), Client: client, State: s})
	}
	clients, err := startClients(ctx, proxies, cfg, onState)
	defer closeClients(clients)
	if err != nil {
		return nil, err
	}

	holding := make([]atomic.Bool, cfg.Clients)
	workCtx, stopWork := context.WithCancel(ctx)
	defer stopWork()
	var wg sync.WaitGroup
	churn := &churnGate{}                // the discovery and cache campaigns'
	rounds := newRoundGate(len(clients)) // the barrier campaign's
	for i, c := range clients {
		w := newWorker(i, c, cfg, p, clk, history, &holding[i], churn, rounds)
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(workCtx)
		}()
	}

	cfg.Logf("campaign %s: seed=%d duration=%v clients=%d session=%v", cfg.Kind, cfg.Seed, cfg.Duration, cfg.Clients, cfg.SessionTimeout)
	nem := newNemesis(cfg.Seed, uint64(cfg.Kind), cluster, proxies, holding, cfg.SessionTimeout, clk, cfg.Logf, cfg.Faults)
	nem.procs = procs
	if cfg.Kind.settles() {
		nem.settle = func(ctx context.Context) {
			churn.settle(ctx, history, cfg.Clients, clk, settleBound(cfg.SessionTimeout))
		}
	}
	maxFaults, fullRounds := int(cfg.Duration/time.Second)+1, 0
	if cfg.Rounds > 0 {
		maxFaults = cfg.Rounds * len(cfg.Faults)
		fullRounds = maxFaults
	}
	faults, healedAt, nemErr := nem.run(ctx, cfg.Duration, fullRounds, maxFaults)
	if nem.settle != nil {
		nem.settle(ctx)
	}
	cfg.Logf("campaign %s: %d faults, all healed at %s; awaiting progress of every client", cfg.Kind, len(faults), fmtDur(healedAt))
	awaitProgress(ctx, history, cfg, healedAt)

	stopWork()
	wg.Wait()
	closeClients(clients)
	closeProxies(proxies)
	if nemErr != nil {
		return nil, fmt.Errorf("campaign: nemesis: %w", nemErr)
	}

	final, err := finalState(ctx, cluster, p, cfg.SessionTimeout, marks)
	if err != nil {
		return nil, err
	}
	holds := history.sortedHolds()
	var v Verdict
	switch {
	case cfg.Kind.leases():
		v = checkLeases(holds, final, cfg.Clients, healedAt, cfg.MaxLeases)
	case cfg.Kind == Counter:
		v = checkCounters(holds, final, cfg.Clients, healedAt)
	case cfg.Kind == Discovery:
		v = checkDiscovery(holds, final, faults, cfg.Clients, healedAt, cfg.SessionTimeout)
	case cfg.Kind == Cache:
		v = checkCache(holds, final, faults, cfg.Clients, healedAt, cfg.SessionTimeout)
	case cfg.Kind == Barrier:
		v = checkBarrier(holds, final, cfg.Clients, healedAt)
	case cfg.Kind == Queue:
		v = checkQueue(holds, history.stateChanges(), final, cfg.Clients, healedAt)
	case cfg.Kind.elections():
		v = checkElection(holds, final, cfg.Clients, healedAt)
	default:
		v = check(holds, final, cfg.Clients, healedAt, cfg.Kind == ReadWriteLock)
	}
	checkReplicas(&v, final)
	return &Report{Seed: cfg.Seed, Duration: cfg.Duration, Kind: cfg.Kind, Faults: faults, HealedAt: healedAt,
		Holds: holds, States: history.stateChanges(), Verdict: v}, nil
}

// awaitProgress lets the workers run until each has made progress since
// healedAt, or until the recovery bound passes (the checker then reports who
// did not).
func awaitProgress(ctx context.Context, h *recorder, cfg Config, healedAt time.Duration) {
	deadline := time.Now().Add(cfg.Recovery)
	for time.Now().Before(deadline) {
		done := true
		for _, ok := range h.progressed(cfg.Clients, healedAt, cfg.Kind == ReadWriteLock || cfg.Kind.settles()) {
			done = done && ok
		}
		if done || !sleepCtx(ctx, 50*time.Millisecond) {
			return
		}
	}
}

// adminClient connects straight to the ensemble, past the proxies, for
// setting up and inspecting a campaign.
func adminClient(ctx context.Context, cluster *zktest.Cluster) (*framework.Client, error) {
	c, err := dialAdmin(ctx, cluster.ConnectString())
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, membersStatus(ctx, cluster))
	}
	return c, nil
}

// membersStatus says what each member answers to "srvr" now: its mode, or
// why it does not serve; for errors of a connection that did not come.
func membersStatus(ctx context.Context, cluster *zktest.Cluster) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var out []string
	for i := range cluster.Size() {
		reply, err := cluster.Server(i).FourLetter(ctx, "srvr")
		status := "no answer: " + fmt.Sprint(err)
		if err == nil {
			status = strings.TrimSpace(reply)
			for _, line := range strings.Split(reply, "\n") {
				if strings.HasPrefix(line, "Mode:") {
					status = line
				}
			}
		}
		out = append(out, fmt.Sprintf("member %d %s", i, status))
	}
	return strings.Join(out, "; ")
}

// dialAdmin connects to the members in connect and awaits the session.
func dialAdmin(ctx context.Context, connect string) (*framework.Client, error) {
	c, err := framework.NewClient(connect, zkclient.TestRetryPolicy,
		framework.WithSessionTimeout(4*time.Second), framework.WithConnectionTimeout(5*time.Second))
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		c.Close()
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := c.BlockUntilConnected(cctx); err != nil {
		c.Close()
		return nil, fmt.Errorf("campaign: connect to %s: %w", connect, err)
	}
	return c, nil
}

// setUp creates the counter and the fence at zero and the parent of the
// acknowledgement nodes.
func setUp(ctx context.Context, cluster *zktest.Cluster, p paths) error {
	c, err := adminClient(ctx, cluster)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for _, n := range []struct {
		path string
		data string
	}{{p.counter, "0"}, {p.fence, "0"}, {p.acks, ""}, {p.long, "\x00\x00\x00\x00\x00\x00\x00\x00"}, {p.count, "\x00\x00\x00\x00"}} {
		if _, err := c.Create(ctx, n.path, []byte(n.data), framework.CreatingParentsIfNeeded()); err != nil {
			return fmt.Errorf("campaign: set up %s: %w", n.path, err)
		}
	}
	return nil
}

// startProxies puts a proxy in front of every member for every client.
func startProxies(cluster *zktest.Cluster, clients int) ([][]*zktest.Proxy, error) {
	proxies := make([][]*zktest.Proxy, clients)
	for i := range proxies {
		for _, addr := range cluster.Addrs() {
			px, err := zktest.NewProxy(addr)
			if err != nil {
				return proxies, fmt.Errorf("campaign: proxy for client %d: %w", i, err)
			}
			proxies[i] = append(proxies[i], px)
		}
	}
	return proxies, nil
}

func closeProxies(proxies [][]*zktest.Proxy) {
	for _, ps := range proxies {
		for _, px := range ps {
			px.Close()
		}
	}
}

// simulatedPercent gives every other client an early simulated expiry: it
// gives its session up after 10% of the session timeout in SUSPENDED (which
// starts at about 2/3 of it), so a SuspendClient fault usually ends with the
// session given up while the server keeps it, and its nodes, for about a
// third of a timeout more: nodes of given-up sessions that the session rule
// must never let grant a hold or a lease.
func simulatedPercent(client int) int {
	if client%2 == 1 {
		return 10
	}
	return 100
}

// startClients starts one client per proxy set, each over its own proxies
// only, and waits until all are connected.
func startClients(ctx context.Context, proxies [][]*zktest.Proxy, cfg Config, onState func(int, framework.ConnectionState)) ([]*framework.Client, error) {
	clients := make([]*framework.Client, 0, len(proxies))
	for i, ps := range proxies {
		addrs := make([]string, len(ps))
		for j, px := range ps {
			addrs[j] = px.Addr()
		}
		c, err := framework.NewClient(strings.Join(addrs, ","), zkclient.TestRetryPolicy,
			framework.WithSessionTimeout(cfg.SessionTimeout),
			framework.WithConnectionTimeout(2*cfg.SessionTimeout),
			framework.WithSimulatedSessionExpirationPercent(simulatedPercent(i)),
			framework.WithErrorPolicy(errorPolicy(cfg.Kind, i)))
		if err != nil {
			return clients, fmt.Errorf("campaign: client %d: %w", i, err)
		}
		clients = append(clients, c)
		c.Listen(func(s framework.ConnectionState) { onState(i, s) })
		if err := c.Start(); err != nil {
			return clients, fmt.Errorf("campaign: start client %d: %w", i, err)
		}
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for i, c := range clients {
		if err := c.BlockUntilConnected(cctx); err != nil {
			return clients, fmt.Errorf("campaign: connect client %d: %w", i, err)
		}
	}
	return clients, nil
}

func closeClients(clients []*framework.Client) {
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Close()
		}()
	}
	wg.Wait()
}
