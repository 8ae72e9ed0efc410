package locks

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
)

// maxTTL is the longest TTL ZooKeeper accepts: EphemeralType.TTL keeps it in
// 40 bits of milliseconds (about 34.8 years).
const maxTTL = time.Duration(0xFFFFFFFFFF) * time.Millisecond

// PersistentTTLLockInternalsDriver turns a lock into a lease that outlives
// the session that took it. Its nodes are protected
// PERSISTENT_SEQUENTIAL_WITH_TTL nodes, "_c_<id>-<lockName><sequence>" under
// container parents, held in sequence order as with the standard driver, so
// they exclude Curator's and this package's standard locks on the same path.
//
// ZooKeeper deletes a TTL node once it has gone unmodified for the TTL and has
// no children (the server checks every znode.container.checkIntervalMs, so
// deletion may come up to that much later). From the moment it creates a node
// until the node is released or abandoned, the driver therefore keeps it
// alive, whether its contender waits or holds: every TTL/3 it rewrites the
// node's data unchanged (a conditional setData that never overwrites what
// someone else wrote, such as a revocation request). The driver gives a node
// up, and a waiter starts over while a holder's Lost channel closes, when a
// refresh finds the node deleted, when the client is closed, or when no
// refresh has succeeded for a whole TTL, since by then the server may have
// deleted the node. Every refresh also wakes the contender that watches the
// node, which then lists the children once more.
//
// So a holder that stops without releasing (a crash, a kill, a Close) keeps
// the lock for up to the TTL plus the server's check interval, and then the
// lock frees itself. A holder that restarts within that time keeps the lock:
// when the driver is given the node's protected id (WithProtectedID), its
// CreatesTheLock first looks for a node of that id under the lock path and
// adopts it, with the new contender's data, keeping its place in line and
// its fencing token.
//
// The trade-off: the lock is held by the id, not by the session. ZooKeeper
// cannot tell a restarted holder from a second process that uses the same id,
// so mutual exclusion holds only as long as at most one live process uses an
// id at a time; keep the id in storage that only one instance of the holder
// can own. Nor does a session's end free the lock: a holder cut off from the
// ensemble still holds it, on the server, until the TTL passes, and it learns
// of that through Lost (on Suspended under the standard error policy, or when
// a refresh has failed for a whole TTL). Choose a TTL longer than the longest
// pause a holder should survive, and shorter than the time others can afford
// to wait for a crashed holder.
//
// The server must run with zookeeper.extendedTypesEnabled=true. Create a
// driver with NewPersistentTTLLockInternalsDriver; it is safe for concurrent
// use and may serve many locks, but a driver with a protected id is one
// contender: it refuses a second contender on the same lock while its first
// is still there.
type PersistentTTLLockInternalsDriver struct {
	// StandardLockInternalsDriver supplies GetsTheLock, FixForSorting and
	// NodesSortInCreationOrder.
	StandardLockInternalsDriver

	ttl time.Duration
	id  string

	mu      sync.Mutex
	leases  map[string]*lease // by node path
	claimed map[string]bool   // lock paths contended with the fixed id
}

var (
	_ LockInternalsDriver = (*PersistentTTLLockInternalsDriver)(nil)
	_ CreationOrdered     = (*PersistentTTLLockInternalsDriver)(nil)
	_ Releaser            = (*PersistentTTLLockInternalsDriver)(nil)
	_ NodeKeeper          = (*PersistentTTLLockInternalsDriver)(nil)
)

// TTLDriverOption configures a PersistentTTLLockInternalsDriver.
type TTLDriverOption func(*PersistentTTLLockInternalsDriver)

// WithProtectedID makes every node of the driver carry the protected id id (a
// UUID from protection.NewID) instead of a new one per node, so that a holder
// that restarts with the same id finds its node again and keeps the lock.
// Keep the id where the restarted process will find it, and never let two
// live processes use it (see PersistentTTLLockInternalsDriver).
func WithProtectedID(id string) TTLDriverOption {
	return func(d *PersistentTTLLockInternalsDriver) { d.id = id }
}

// NewPersistentTTLLockInternalsDriver returns a driver whose lock nodes live
// for ttl after their last refresh. ttl must be a whole number of
// milliseconds from 1ms to ZooKeeper's maximum of 2^40-1 ms; a bad ttl or id
// is reported here, before any request.
func NewPersistentTTLLockInternalsDriver(ttl time.Duration, opts ...TTLDriverOption) (*PersistentTTLLockInternalsDriver, error) {
	switch {
	case ttl <= 0:
		return nil, fmt.Errorf("locks: lock TTL %v: must be positive", ttl)
	case ttl > maxTTL:
		return nil, fmt.Errorf("locks: lock TTL %v: exceeds ZooKeeper's maximum TTL of %v (2^40-1 ms)", ttl, maxTTL)
	case ttl%time.Millisecond != 0:
		return nil, fmt.Errorf("locks: lock TTL %v: ZooKeeper keeps TTLs in whole milliseconds", ttl)
	}
	d := &PersistentTTLLockInternalsDriver{
		ttl:     ttl,
		leases:  make(map[string]*lease),
		claimed: make(map[string]bool),
	}
	for _, opt := range opts {
		opt(d)
	}
	if d.id != "" && !protection.IsProtected(protection.Name(d.id, lockNameMutex)) {
		return nil, fmt.Errorf("locks: protected id %q: not a UUID from protection.NewID", d.id)
	}
	return d, nil
}

// TTL returns the time a lock node lives after its last refresh.
func (d *PersistentTTLLockInternalsDriver) TTL() time.Duration { return d.ttl }

// ProtectedID returns the id given with WithProtectedID, or "" when each node
// gets a new one.
func (d *PersistentTTLLockInternalsDriver) ProtectedID() string { return d.id }

// CreatesTheLock adopts this driver's node under the lock path when it has a
// protected id and such a node exists (rewriting its data to data, unless the
// node carries a revocation request); otherwise it creates a protected
// PERSISTENT_SEQUENTIAL_WITH_TTL node, making missing parents containers.
// Either way it keeps the node alive from then on, until ReleasesTheLock.
func (d *PersistentTTLLockInternalsDriver) CreatesTheLock(ctx context.Context, c *framework.Client, lockPath string, data []byte) (string, error) {
	if d.leases == nil {
		return "", errors.New("locks: PersistentTTLLockInternalsDriver used without NewPersistentTTLLockInternalsDriver")
	}
	if d.id != "" {
		if err := d.claim(lockPath); err != nil {
			return "", err
		}
	}
	nodePath, version, renewed, err := d.createOrAdopt(ctx, c, lockPath, data)
	if err != nil {
		d.unclaim(lockPath)
		return "", err
	}
	d.keep(c, lockPath, nodePath, data, version, renewed)
	return nodePath, nil
}

func (d *PersistentTTLLockInternalsDriver) claim(lockPath string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.claimed[lockPath] {
		return fmt.Errorf("locks: protected id %s already contends for %s through this driver (one id is one contender)", d.id, lockPath)
	}
	d.claimed[lockPath] = true
	return nil
}

func (d *PersistentTTLLockInternalsDriver) unclaim(lockPath string) {
	if d.id == "" {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.claimed, lockPath)
}

// createOrAdopt returns our node, the version of its data as we last wrote
// it, and a time no later than that write.
func (d *PersistentTTLLockInternalsDriver) createOrAdopt(ctx context.Context, c *framework.Client, lockPath string, data []byte) (string, int32, time.Time, error) {
	started := time.Now()
	if d.id != "" {
		nodePath, version, err := d.adopt(ctx, c, lockPath, data)
		if err != nil || nodePath != "" {
			return nodePath, version, started, err
		}
	}
	protect := framework.WithProtection()
	if d.id != "" {
		protect = framework.WithProtectedID(d.id)
	}
	nodePath, err := c.Create(ctx, lockPath, data,
		framework.WithMode(framework.PersistentSequentialWithTTL),
		framework.WithTTL(d.ttl),
		protect,
		framework.CreatingParentContainersIfNeeded())
	return nodePath, 0, started, err
}

// adopt finds the node that our protected id names under the lock path and
// writes data to it. When several exist (an abandoned node whose delete
// failed, say), the first in line is adopted and the others are deleted. It
// returns "" when there is none.
func (d *PersistentTTLLockInternalsDriver) adopt(ctx context.Context, c *framework.Client, lockPath string, data []byte) (string, int32, error) {
	basePath, lockName := path.Dir(lockPath), path.Base(lockPath)
	children, _, err := c.Children(ctx, basePath)
	if errors.Is(err, zk.ErrNoNode) {
		return "", 0, nil
	}
	if err != nil {
		return "", 0, fmt.Errorf("locks: look for the node of id %s under %s: %w", d.id, basePath, err)
	}
	var ours []string
	for _, child := range children {
		if id, ok := protection.ID(child); !ok || id != d.id {
			continue
		}
		if !strings.HasPrefix(protection.Strip(child), lockName) {
			return "", 0, fmt.Errorf("locks: protected id %s already names %s, which is not a %q node: use one id per lock name", d.id, framework.JoinPath(basePath, child), lockName)
		}
		ours = append(ours, child)
	}
	ours = SortedContenders(ours, lockName, d.FixForSorting)
	if len(ours) == 0 {
		return "", 0, nil
	}
	for _, extra := range ours[1:] {
		_ = c.Delete(ctx, framework.JoinPath(basePath, extra), framework.Guaranteed(), framework.Quietly())
	}
	nodePath := framework.JoinPath(basePath, ours[0])
	version, err := rewrite(ctx, c, nodePath, data)
	if errors.Is(err, zk.ErrNoNode) {
		return "", 0, nil // it expired just now: create anew
	}
	if err != nil {
		return "", 0, fmt.Errorf("locks: adopt %s: %w", nodePath, err)
	}
	c.Logger().Info("adopted a lock node of our protected id", zap.String("path", nodePath))
	return nodePath, version, nil
}

// rewrite sets the node's data to data unless it holds a revocation request,
// which is kept so that the revocation watch still sees it.
func rewrite(ctx context.Context, c *framework.Client, nodePath string, data []byte) (int32, error) {
	const attempts = 3
	var err error
	for range attempts {
		var cur []byte
		var stat *zk.Stat
		cur, stat, err = c.GetData(ctx, nodePath)
		if err != nil {
			return 0, err
		}
		next := data
		if string(cur) == RevokeMessage {
			next = cur
		}
		stat, err = c.SetData(ctx, nodePath, next, stat.Version)
		if err == nil {
			return stat.Version, nil
		}
		if !errors.Is(err, zk.ErrBadVersion) {
			return 0, err
		}
	}
	return 0, err
}

// ReleasesTheLock stops keeping the node alive and deletes it (guaranteed:
// retried in the background when the connection is down; should that never
// succeed, the TTL still removes the node). A node that this driver has since
// adopted for another client is left alone: it is that contender's now.
func (d *PersistentTTLLockInternalsDriver) ReleasesTheLock(ctx context.Context, c *framework.Client, nodePath string) error {
	d.mu.Lock()
	l := d.leases[nodePath]
	if l != nil && l.client != c {
		d.mu.Unlock()
		return nil
	}
	if l != nil {
		delete(d.leases, nodePath)
		if d.id != "" {
			delete(d.claimed, l.lockPath)
		}
	}
	d.mu.Unlock()
	if l != nil {
		l.cancel()
		<-l.done
	}
	return c.Delete(ctx, nodePath, framework.Guaranteed(), framework.Quietly())
}

// NodeLost returns a channel that is closed when the driver stops keeping the
// node at nodePath alive without a release; see NodeKeeper.
func (d *PersistentTTLLockInternalsDriver) NodeLost(nodePath string) <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	if l := d.leases[nodePath]; l != nil {
		return l.lost
	}
	return closedChan
}

// lease keeps one node alive.
type lease struct {
	client   *framework.Client
	lockPath string
	ctx      context.Context // cancelled on release
	cancel   context.CancelFunc
	done     chan struct{} // closed when the refresh loop has ended
	lost     chan struct{} // closed when the node was given up without a release
}

func (d *PersistentTTLLockInternalsDriver) keep(c *framework.Client, lockPath, nodePath string, data []byte, version int32, renewed time.Time) {
	ctx, cancel := context.WithCancel(context.Background())
	l := &lease{client: c, lockPath: lockPath, ctx: ctx, cancel: cancel, done: make(chan struct{}), lost: make(chan struct{})}
	d.mu.Lock()
	d.leases[nodePath] = l
	d.mu.Unlock()
	go d.refreshLoop(l, nodePath, data, version, renewed)
}

// refreshLoop rewrites the node every TTL/3 until the lease is released or the
// node has to be given up. A failed refresh is retried sooner.
func (d *PersistentTTLLockInternalsDriver) refreshLoop(l *lease, nodePath string, data []byte, version int32, renewed time.Time) {
	defer close(l.done)
	defer l.cancel()
	interval := max(d.ttl/3, time.Millisecond)
	retryAfter := max(interval/8, time.Millisecond)
	t := time.NewTimer(interval - time.Since(renewed))
	defer t.Stop()
	for {
		select {
		case <-l.ctx.Done():
			return
		case <-t.C:
		}
		// A refresh may take until the next one is due, but never past the
		// moment the server may delete the node.
		sent := time.Now()
		deadline := sent.Add(interval)
		if expiry := renewed.Add(d.ttl); expiry.Before(deadline) {
			deadline = expiry
		}
		ctx, cancel := context.WithDeadline(l.ctx, deadline)
		var err error
		data, version, err = refresh(ctx, l.client, nodePath, data, version)
		cancel()
		switch {
		case l.ctx.Err() != nil:
			return
		case err == nil:
			renewed = sent
			t.Reset(interval)
		case errors.Is(err, zk.ErrNoNode):
			d.giveUp(l, nodePath, "lock node deleted")
			return
		case errors.Is(err, framework.ErrClosed):
			d.giveUp(l, nodePath, "client closed")
			return
		case !time.Now().Before(renewed.Add(d.ttl)):
			d.giveUp(l, nodePath, "lock node not refreshed within its TTL")
			return
		default:
			l.client.Logger().Debug("refreshing a TTL lock node failed; retrying",
				zap.String("path", nodePath), zap.Error(err))
			t.Reset(retryAfter)
		}
	}
}

// refresh rewrites the node's data if it is still at version, touching its
// modification time. When someone else has written the node since, their data
// is what gets rewritten.
func refresh(ctx context.Context, c *framework.Client, nodePath string, data []byte, version int32) ([]byte, int32, error) {
	stat, err := c.SetData(ctx, nodePath, data, version)
	if err == nil {
		return data, stat.Version, nil
	}
	if !errors.Is(err, zk.ErrBadVersion) {
		return data, version, err
	}
	cur, stat, err := c.GetData(ctx, nodePath)
	if err != nil {
		return data, version, err
	}
	if stat, err = c.SetData(ctx, nodePath, cur, stat.Version); err != nil {
		return cur, version, err
	}
	return cur, stat.Version, nil
}

// giveUp ends a lease that was not released: its contender learns through
// NodeLost, and the lock path may be contended for again.
func (d *PersistentTTLLockInternalsDriver) giveUp(l *lease, nodePath, why string) {
	l.client.Logger().Warn("no longer keeping a TTL lock node", zap.String("path", nodePath), zap.String("reason", why))
	d.mu.Lock()
	if d.leases[nodePath] == l {
		delete(d.leases, nodePath)
		if d.id != "" {
			delete(d.claimed, l.lockPath)
		}
	}
	d.mu.Unlock()
	close(l.lost)
}
