package cache

// Queued returns how many events wait for the consumer.
func (t *TreeCache) Queued() int { return t.e.outbox.Len() }

// Queued returns how many events wait for the consumer.
func (p *PathChildrenCache) Queued() int { return p.e.outbox.Len() }

// Slack is how many events beyond the size of the tree may wait.
const Slack = slack

// Inputs returns how many watch notifications and connection states wait
// for the cache's loop.
func (t *TreeCache) Inputs() int {
	return t.e.inbox.Len()
}

// ReadsInFlight is how many reads one load or resync has under way at most.
const ReadsInFlight = readsInFlight

// BatchReads and BatchReaders are how many nodes one multiRead batch reads
// under a recursive watch, and how many batches are under way at most.
const (
	BatchReads   = batchReads
	BatchReaders = batchReaders
)

// ReadWithoutMultiRead makes the cache read as it does on a server that
// answered a multiRead as unknown: one request a node.
func (c *CuratorCache) ReadWithoutMultiRead() { c.e.noMultiRead.Store(true) }
