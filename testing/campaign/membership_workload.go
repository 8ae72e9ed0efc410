package campaign

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/nodes"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// runMembership is the membership campaign: every client is a GroupMember
// of one group. The nemesis injects one fault at a time; once it has healed,
// every live member must see exactly the live members, as the server has
// them, within cfg.Recovery. At the end one member's client dies (closes
// without leaving) and the others must see exactly the rest.
func runMembership(ctx context.Context, cluster *zktest.Cluster, cfg Config) (*Report, error) {
	clk := newClock()
	group := "/campaign/" + cfg.Kind.String() + "/group"
	proxies, err := startProxies(cluster, cfg.Clients)
	defer closeProxies(proxies)
	if err != nil {
		return nil, err
	}
	history := &recorder{}
	onState := func(client int, s framework.ConnectionState) {
		history.addState(StateChange{At: clk.now(), Client: client, State: s})
	}
	clients, err := startClients(ctx, proxies, cfg, onState)
	defer closeClients(clients)
	if err != nil {
		return nil, err
	}
	admin, err := adminClient(ctx, cluster)
	if err != nil {
		return nil, err
	}
	defer admin.Close()

	members := make([]*nodes.GroupMember, len(clients))
	for i, c := range clients {
		id := fmt.Sprintf("c%d", i)
		m, err := nodes.NewGroupMember(c, group, id, []byte(memberData(id)))
		if err != nil {
			return nil, err
		}
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err = m.Start(sctx)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("campaign: member %d: %w", i, err)
		}
		defer m.Close(context.WithoutCancel(ctx))
		members[i] = m
	}

	cfg.Logf("campaign %s: seed=%d duration=%v members=%d session=%v", cfg.Kind, cfg.Seed, cfg.Duration, cfg.Clients, cfg.SessionTimeout)
	nem := newNemesis(cfg.Seed, uint64(cfg.Kind), cluster, proxies, make([]atomic.Bool, cfg.Clients), cfg.SessionTimeout, clk, cfg.Logf, cfg.Faults)
	var v Verdict
	var faults []Fault
	var healedAt time.Duration
	for end := time.Now().Add(cfg.Duration); time.Now().Before(end) && ctx.Err() == nil; {
		fs, healed, err := nem.run(ctx, 4*time.Second, 0, 1)
		for _, f := range fs {
			f.N = len(faults) + 1
			faults = append(faults, f)
		}
		healedAt = healed
		if err != nil {
			return nil, fmt.Errorf("campaign: nemesis: %w", err)
		}
		if len(fs) > 0 {
			v.Acquisitions++ // the summary's acquisitions: settled faults checked
			agree(ctx, &v, admin, group, members, cfg.Recovery, fmt.Sprintf("after fault %d (%s)", len(faults), fs[0].Kind))
		}
	}

	last := len(clients) - 1
	clients[last].Close()
	agree(ctx, &v, admin, group, members[:last], cfg.Recovery, fmt.Sprintf("after member c%d's client died", last))

	return &Report{Seed: cfg.Seed, Duration: cfg.Duration, Kind: cfg.Kind, Faults: faults, HealedAt: healedAt,
		States: history.stateChanges(), Verdict: v}, nil
}

// agree waits until every member in live sees exactly the live members, and
// the server holds exactly them; it records a violation naming the views
// when they do not within recovery.
func agree(ctx context.Context, v *Verdict, admin *framework.Client, group string, live []*nodes.GroupMember, recovery time.Duration, when string) {
	want := make([]string, len(live))
	for i, m := range live {
		want[i] = m.ID()
	}
	slices.Sort(want)
	deadline := time.Now().Add(recovery)
	var last string
	for {
		ok, views := viewsAgree(ctx, admin, group, live, want)
		if ok {
			return
		}
		last = views
		if time.Now().After(deadline) || !sleepCtx(ctx, 50*time.Millisecond) {
			break
		}
	}
	v.violate("membership %s: the views did not settle on %v within %v: %s", when, want, recovery, last)
}

// memberData is the data member id joins with, which every view must show.
func memberData(id string) string { return "member " + id }

// viewsAgree reports whether the server's members and every member's view
// are exactly want, with each member's own data, and describes them.
func viewsAgree(ctx context.Context, admin *framework.Client, group string, live []*nodes.GroupMember, want []string) (bool, string) {
	onServer, _, err := admin.Children(ctx, group)
	slices.Sort(onServer)
	ok := err == nil && slices.Equal(onServer, want)
	desc := []string{fmt.Sprintf("server=%v", onServer)}
	for _, m := range live {
		view := m.CurrentMembers()
		ids := make([]string, 0, len(view))
		for id, data := range view {
			ids = append(ids, id)
			ok = ok && string(data) == memberData(id)
		}
		slices.Sort(ids)
		ok = ok && slices.Equal(ids, want)
		desc = append(desc, fmt.Sprintf("%s=%v", m.ID(), ids))
	}
	return ok, strings.Join(desc, " ")
}
