package leader

import (
	"context"
	"errors"
	"fmt"
	"path"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/internal/lifecycle"
	"github.com/zkcurator/zkcurator/recipes/internal/owned"
)

// Pauses after a failed round of the latch's loop: doubling from
// minPause up to maxPause.
const (
	minPause = 50 * time.Millisecond
	maxPause = time.Second
)

// run queues the latch until ctx (the latch's life) ends or the client is
// closed, which ends the term at once. Each round makes sure the latch has a
// node of the current session, then leads through it or waits for the node
// before it.
func (l *LeaderLatch) run(ctx context.Context) {
	defer close(l.done)
	ctx, stop := untilClientCloses(ctx, l.client, func() { l.endTerm(errClientClosed) })
	defer stop()
	pause := minPause
	for ctx.Err() == nil {
		err := l.round(ctx)
		if err == nil || ctx.Err() != nil {
			pause = minPause
			continue
		}
		l.client.Logger().Warn("leader latch round failed", zap.String("path", l.path), zap.String("id", l.id), zap.Error(err))
		l.client.ReportError(fmt.Errorf("leader: latch round on %q failed: %w", l.path, err))
		t := time.NewTimer(pause)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
		pause = min(2*pause, maxPause)
	}
}

// round runs one step of the latch's queue.
func (l *LeaderLatch) round(ctx context.Context) error {
	select { // a state change before this round is seen by it
	case <-l.wake:
	default:
	}
	l.mu.Lock()
	node, owner := l.node, l.owner
	l.mu.Unlock()
	if node == "" {
		return l.createNode(ctx)
	}
	if !owner.IsCurrent() {
		l.dropNode(ctx, node, "it belongs to a session the client gave up")
		return nil
	}
	nodes, err := listNodes(ctx, l.client, l.path, latchName)
	if err != nil {
		return err
	}
	i := indexOf(nodes, node)
	switch {
	case i < 0:
		l.dropNode(ctx, node, "it is gone")
		return nil
	case i == 0:
		return l.lead(ctx, node, owner)
	}
	return l.waitFor(ctx, nodes[i-1])
}

// createNode queues the latch with a new node and learns its owner.
func (l *LeaderLatch) createNode(ctx context.Context) error {
	node, owner, err := owned.Create(ctx, l.client, func(ctx context.Context) (string, error) {
		return l.client.Create(ctx, path.Join(l.path, latchName), []byte(l.id),
			framework.WithMode(framework.EphemeralSequential),
			framework.WithProtection(),
			framework.CreatingParentContainersIfNeeded())
	})
	if node != "" {
		// Even when its owner could not be read: the next round (owner of id 0)
		// or Close deletes it.
		l.mu.Lock()
		l.node, l.owner = node, owner
		l.mu.Unlock()
	}
	return err
}

// waitFor waits until the node before ours changes, the connection changes
// or ctx ends. The data watch leaves no watcher behind when pred is gone.
func (l *LeaderLatch) waitFor(ctx context.Context, pred string) error {
	_, _, w, err := l.client.GetDataW(ctx, pred)
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		return err
	}
	select {
	case <-w:
	case <-l.wake:
	case <-ctx.Done():
	}
	return nil
}

// lead leads through node for as long as that is certain, then gives the
// node up so that the next term, ours or another's, comes with a higher
// token.
func (l *LeaderLatch) lead(ctx context.Context, node string, owner framework.Session) error {
	stat, w, err := l.client.ExistsW(ctx, node)
	if err != nil {
		return err
	}
	if stat == nil || stat.EphemeralOwner != owner.ID() {
		l.dropNode(ctx, node, "it is gone")
		return nil
	}
	l.mu.Lock()
	// The client's closing ends the term under l.mu: a term begun after it
	// would outlive the client.
	if l.life.State() != lifecycle.Started || ctx.Err() != nil || clientClosed(l.client) {
		l.mu.Unlock()
		return nil
	}
	t := newTerm(node, owner, stat.Czxid, l.met)
	l.term, l.last = t, t
	// onState takes l.mu too: a state change either shows here or finds the term.
	switch s := l.client.State(); {
	case l.client.ErrorPolicy().IsErrorState(s):
		l.endTermLocked(lost("connection "+s.String()), false)
	case !owner.IsCurrent():
		l.endTermLocked(lost("the session that owns the latch node is gone"), false)
	default:
		l.publishLocked(t.Term)
		l.broadcastLocked()
	}
	l.mu.Unlock()
	if !t.live() {
		// The term never began: no work to wait for.
		l.dropNode(ctx, node, "leadership was not certain")
		return nil
	}
	l.client.Logger().Info("leader latch leads", zap.String("path", l.path), zap.String("id", l.id), zap.String("node", node), zap.Int64("token", t.Token))

	for {
		select {
		case ev := <-w:
			if ev.Type == zk.EventNodeDataChanged {
				// Only the data changed: keep watching the node.
				if stat, w, err = l.client.ExistsW(ctx, node); err == nil && stat != nil {
					continue
				}
			}
			l.endTerm(lost("the latch node was deleted or is no longer watched"))
		case <-t.Done():
		case <-ctx.Done():
			return nil // Close ends the term and deletes the node
		}
		break
	}
	if l.manual {
		// Keep the node, so that no one else leads, until the term's work
		// has stopped; Close deletes it if that comes first.
		select {
		case <-t.stepped:
		case <-ctx.Done():
			return nil
		}
	}
	l.dropNode(ctx, node, "its term ended")
	return nil
}

// endTerm is endTermLocked for the loop, reporting the end. A term that
// ends once the client is closed ends for that reason.
func (l *LeaderLatch) endTerm(cause error) {
	if clientClosed(l.client) {
		cause = errClientClosed
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.endTermLocked(cause, true)
}

// dropNode forgets node and deletes it, guaranteed, so that the latch queues
// again with a new node. A delete that the connection or Close cuts short
// goes on in the client's background.
func (l *LeaderLatch) dropNode(ctx context.Context, node, why string) {
	l.mu.Lock()
	if l.node == node {
		l.node, l.owner = "", framework.Session{}
	}
	l.mu.Unlock()
	l.client.Logger().Info("leader latch gives up its node", zap.String("path", l.path), zap.String("node", node), zap.String("reason", why))
	dctx, cancel := context.WithTimeout(ctx, l.client.SessionTimeout())
	defer cancel()
	_ = l.client.Delete(dctx, node, framework.Guaranteed(), framework.Quietly())
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}
