package cache

// Queued returns how many events wait for the consumer.
func (t *TreeCache) Queued() int { return t.e.outbox.len() }

// Queued returns how many events wait for the consumer.
func (p *PathChildrenCache) Queued() int { return p.e.outbox.len() }

// Slack is how many events beyond the size of the tree may wait.
const Slack = slack

// Inputs returns how many watch notifications and connection states wait
// for the cache's loop.
func (t *TreeCache) Inputs() int {
	t.e.inbox.mu.Lock()
	defer t.e.inbox.mu.Unlock()
	return len(t.e.inbox.items)
}
