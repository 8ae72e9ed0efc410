package campaign

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/discovery"
)

// The discovery campaign's service lives at {root}/lock, the path whose
// children the final state lists as orphans: its instance nodes are
// ephemeral, so none may outlive the clients.
const discoveryService = "lock"

// Targets of the discovery campaign's records. A registration is a Shared
// hold (the campaign's progress ignores it); a comparison is an Increment
// hold, Accepted only when the cache agreed and the worker's kept instance
// was registered, so that the campaign awaits that after the last fault.
const (
	targetRegister = "register" // one transient registration: register, dwell, unregister
	targetCache    = "cache"    // one comparison of the worker's cache with the server's children
)

// discoveryPayload is what every instance carries.
type discoveryPayload struct {
	Client int `json:"client"`
}

// discoverer is one worker's discovery: its ServiceDiscovery, the instance
// it keeps registered for the whole campaign, and its ServiceCache of the
// service.
type discoverer struct {
	d     *discovery.ServiceDiscovery[discoveryPayload]
	dir   string
	keep  discovery.ServiceInstance[discoveryPayload]
	cache *discovery.ServiceCache[discoveryPayload]
	churn *churnGate // shared by every worker of the campaign
}

func newDiscoverer(id int, c *framework.Client, p paths, churn *churnGate) (*discoverer, error) {
	d, err := discovery.NewServiceDiscovery[discoveryPayload](c, p.root, discovery.WithRetryEvery(100*time.Millisecond))
	if err != nil {
		return nil, err
	}
	sc, err := d.NewServiceCache(discoveryService)
	if err != nil {
		return nil, err
	}
	return &discoverer{d: d, dir: framework.JoinPath(p.root, discoveryService), keep: discoveryInstance(id, -1), cache: sc, churn: churn}, nil
}

// discoveryInstance is client's instance number seq (-1: the one it keeps).
func discoveryInstance(client, seq int) discovery.ServiceInstance[discoveryPayload] {
	i := discovery.NewServiceInstance[discoveryPayload](discoveryService, "127.0.0.1", 9000+client)
	i.ID = fmt.Sprintf("c%d", client)
	if seq >= 0 {
		i.ID = fmt.Sprintf("c%d-%07d", client, seq)
	}
	i.Payload, i.PayloadClass = &discoveryPayload{Client: client}, "com.example.CampaignPayload"
	return i
}

// runDiscovery is a worker's loop: it keeps one instance registered, and
// in turn registers a transient instance, dwells, unregisters it, and
// compares its cache with the server's children.
func (w *worker) runDiscovery(ctx context.Context) {
	dc := w.discovery
	if err := dc.d.Start(); err != nil {
		panic(fmt.Sprintf("campaign: discovery of client %d: %v", w.id, err)) // a fresh, open discovery starts
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.release)
		defer cancel()
		dc.cache.Close()
		dc.d.Close(cctx)
	}()
	for done := false; !done && ctx.Err() == nil; {
		// A failed register still keeps the registration: it is made again
		// after the next reconnect. Try again only while it is not made.
		octx, cancel := context.WithTimeout(ctx, w.opTimeout)
		done = dc.d.RegisterService(octx, dc.keep) == nil || dc.d.IsRegistered(dc.keep.ID)
		cancel()
	}
	for started := false; !started && ctx.Err() == nil; {
		octx, cancel := context.WithTimeout(ctx, w.opTimeout)
		started = dc.cache.Start(octx) == nil
		cancel()
	}
	for seq := 0; seq < maxIterations && ctx.Err() == nil; seq++ {
		dc.churn.during(func() { w.registerOnce(ctx, seq) })
		w.compareCache(ctx, seq)
		sleepCtx(ctx, 20*time.Millisecond)
	}
}

// registerOnce registers a transient instance, dwells and unregisters it,
// and records whether both calls succeeded.
func (w *worker) registerOnce(ctx context.Context, seq int) {
	dc := w.discovery
	rec := Hold{Client: w.id, Seq: seq, Mode: Shared, Target: targetRegister, Write: never, LostAt: never, Outcome: Accepted}
	rec.Enter = w.clock.now()
	octx, cancel := context.WithTimeout(ctx, w.opTimeout)
	defer cancel()
	inst := discoveryInstance(w.id, seq)
	if err := dc.d.RegisterService(octx, inst); err != nil {
		rec.Outcome, rec.Err = Unknown, err.Error()
	}
	w.dwell(octx)
	if err := dc.d.UnregisterService(octx, inst); err != nil && rec.Err == "" {
		rec.Outcome, rec.Err = Unknown, err.Error()
	}
	rec.Exit = w.clock.now()
	w.history.add(rec)
}

// compareCache reads the service's children, the cache's instances and the
// children again, and records whether the three agree with the worker's
// kept instance among them (Accepted), the two reads agree but the cache
// differs (Conflict), or the service changed between the reads, a read
// failed or the kept instance is missing (Unknown). Counter is the number
// of children, Post the number of cached instances, and Token 1 when the
// kept instance is among the children.
func (w *worker) compareCache(ctx context.Context, seq int) {
	dc := w.discovery
	rec := Hold{Client: w.id, Seq: seq, Mode: Increment, Target: targetCache, Write: never, LostAt: never}
	rec.Enter = w.clock.now()
	octx, cancel := context.WithTimeout(ctx, w.opTimeout)
	defer cancel()
	before, err := serviceChildren(octx, w.client, dc.dir)
	var cached []string
	for _, i := range dc.cache.Instances() {
		cached = append(cached, i.ID)
	}
	slices.Sort(cached)
	var after []string
	if err == nil {
		after, err = serviceChildren(octx, w.client, dc.dir)
	}
	rec.Exit = w.clock.now()
	rec.Counter, rec.Post = int64(len(after)), int64(len(cached))
	if slices.Contains(after, dc.keep.ID) {
		rec.Token = 1
	}
	switch {
	case err != nil:
		rec.Outcome, rec.Err = Unknown, err.Error()
	case !slices.Equal(before, after):
		rec.Outcome = Unknown
	case slices.Equal(cached, after) && rec.Token == 1:
		rec.Outcome = Accepted
	case slices.Equal(cached, after):
		rec.Outcome, rec.Err = Unknown, "the kept instance "+dc.keep.ID+" is not registered"
	default:
		rec.Outcome, rec.Err = Conflict, fmt.Sprintf("server %s, cache %s", strings.Join(after, ","), strings.Join(cached, ","))
	}
	w.history.add(rec)
}

// serviceChildren lists the service's instance nodes, sorted; none when
// the service has no node.
func serviceChildren(ctx context.Context, c *framework.Client, dir string) ([]string, error) {
	kids, _, err := c.Children(ctx, dir)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	slices.Sort(kids)
	return kids, err
}
