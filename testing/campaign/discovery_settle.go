package campaign

import (
	"context"
	"slices"
	"sync"
	"time"
)

// churnGate stops the discovery workers' transient registrations while the
// campaign checks that every cache has caught up. Under the churn of six
// writers the server's children change every few milliseconds and a cache
// learns of each change a round trip after the writer, so a comparison
// agrees only in the rare quiet moments; with the churn stopped, a cache
// that keeps up must agree within a few round trips, and one that missed an
// event never does.
type churnGate struct{ mu sync.RWMutex }

// during runs one transient registration, or nothing while the campaign is
// settling (the worker goes on comparing its cache).
func (g *churnGate) during(fn func()) {
	if !g.mu.TryRLock() {
		return
	}
	defer g.mu.RUnlock()
	fn()
}

// settle stops the churn (once the registrations under way are done) and
// waits, up to bound, until every one of clients has recorded a comparison
// begun after that which agreed with the server, its kept instance
// registered; then the churn resumes. The checker judges what was recorded.
func (g *churnGate) settle(ctx context.Context, h *recorder, clients int, clk clock, bound time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	from := clk.now()
	deadline := time.Now().Add(bound)
	for time.Now().Before(deadline) {
		agreed := h.progressed(clients, from, false)
		if !slices.Contains(agreed, false) || !sleepCtx(ctx, 20*time.Millisecond) {
			return
		}
	}
}
