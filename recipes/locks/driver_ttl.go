package locks

import (
	"context"
	"errors"
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
// refresh has succeeded for two thirds of the TTL: the server may delete the
// node once the TTL has passed since the last refresh it applied, and the
// last third is the margin in which the holder learns of it first, as a
// session's Suspended comes at two thirds of its timeout. Every refresh also
// wakes the contender that watches the node, which then lists the children
// once more.
//
// A release ends only the lease its own acquisition made: it deletes the node
// only while the node still has the version the lease last wrote (or, for a
// lease it stops itself, a version it reads back at once), so neither a
// stale release nor its guaranteed retry in the background removes a node
// that was adopted since. A hold whose lease the driver gave up still counts
// as its id's contender until it is released, so release it (the clean-up
// its Lost channel asks for) before contending again with the same id and
// driver; only the claim of a closed client lapses at once.
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
// a refresh has failed for two thirds of the TTL). Choose a TTL longer than
// the longest pause a holder should survive, and shorter than the time others
// can afford to wait for a crashed holder.
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

	mu     sync.Mutex
	leases map[string]*lease // by node path, from creation until release
	claims map[string]*claim // by lock path: its contender with the fixed id
}

// claim is one contention of the driver's fixed id for one lock path, from
// CreatesTheLock until its node is released (or the create fails). The claim
// of a closed client no longer counts: that client can neither hold nor
// release anything.
type claim struct{ client *framework.Client }

var (
	_ LockInternalsDriver = (*PersistentTTLLockInternalsDriver)(nil)
	_ CreationOrdered     = (*PersistentTTLLockInternalsDriver)(nil)
	_ Releaser            = (*PersistentTTLLockInternalsDriver)(nil)
	_ NodeKeeper          = (*PersistentTTLLockInternalsDriver)(nil)
)

// TTLDriverOption configures a PersistentTTLLockInternalsDriver.
type TTLDriverOption func(*ttlDriverConfig)

type ttlDriverConfig struct {
	id string // the protected id of every node; "" for a new one per node
}

// WithProtectedID makes every node of the driver carry the protected id id (a
// UUID from protection.NewID) instead of a new one per node, so that a holder
// that restarts with the same id finds its node again and keeps the lock.
// Keep the id where the restarted process will find it, and never let two
// live processes use it (see PersistentTTLLockInternalsDriver).
func WithProtectedID(id string) TTLDriverOption {
	return func(c *ttlDriverConfig) { c.id = id }
}

// NewPersistentTTLLockInternalsDriver returns a driver whose lock nodes live
// for ttl after their last refresh. ttl must be a whole number of
// milliseconds from 1ms to ZooKeeper's maximum of 2^40-1 ms; a bad ttl or id,
// or a nil option, is reported here, before any request, with an error
// matching ErrInvalidArgument.
func NewPersistentTTLLockInternalsDriver(ttl time.Duration, opts ...TTLDriverOption) (*PersistentTTLLockInternalsDriver, error) {
	var cfg ttlDriverConfig
	for i, opt := range opts {
		if opt == nil {
			return nil, nilOption("NewPersistentTTLLockInternalsDriver", i, len(opts))
		}
		opt(&cfg)
	}
	switch {
	case ttl <= 0:
		return nil, errorf("%w: lock TTL %v: must be positive", ErrInvalidArgument, ttl)
	case ttl > maxTTL:
		return nil, errorf("%w: lock TTL %v: exceeds ZooKeeper's maximum TTL of %v (2^40-1 ms)", ErrInvalidArgument, ttl, maxTTL)
	case ttl%time.Millisecond != 0:
		return nil, errorf("%w: lock TTL %v: ZooKeeper keeps TTLs in whole milliseconds", ErrInvalidArgument, ttl)
	case cfg.id != "" && !protection.IsProtected(protection.Name(cfg.id, lockNameMutex)):
		return nil, errorf("%w: protected id %q: not a UUID from protection.NewID", ErrInvalidArgument, cfg.id)
	}
	return &PersistentTTLLockInternalsDriver{
		ttl:    ttl,
		id:     cfg.id,
		leases: make(map[string]*lease),
		claims: make(map[string]*claim),
	}, nil
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
		return "", errorf("PersistentTTLLockInternalsDriver used without NewPersistentTTLLockInternalsDriver")
	}
	var cl *claim
	if d.id != "" {
		var err error
		if cl, err = d.claim(c, lockPath); err != nil {
			return "", err
		}
	}
	nodePath, version, renewed, err := d.createOrAdopt(ctx, c, lockPath, data)
	if err != nil {
		d.unclaim(lockPath, cl)
		return "", err
	}
	d.keep(&lease{client: c, claim: cl, lockPath: lockPath, nodePath: nodePath, data: data, version: version}, renewed)
	return nodePath, nil
}

func (d *PersistentTTLLockInternalsDriver) claim(c *framework.Client, lockPath string) (*claim, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if held := d.claims[lockPath]; held != nil && !isClosed(held.client.Done()) {
		return nil, errorf("protected id %s already contends for %s through this driver (one id is one contender; a hold counts until it is released, even after its Lost channel closed)", d.id, lockPath)
	}
	cl := &claim{client: c}
	d.claims[lockPath] = cl
	return cl, nil
}

// unclaim ends the claim cl on lockPath, unless another has replaced it.
func (d *PersistentTTLLockInternalsDriver) unclaim(lockPath string, cl *claim) {
	if cl == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.claims[lockPath] == cl {
		delete(d.claims, lockPath)
	}
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
		return "", 0, errorf("look for the node of id %s under %s: %w", d.id, basePath, err)
	}
	var ours []string
	for _, child := range children {
		if id, ok := protection.ID(child); !ok || id != d.id {
			continue
		}
		if !strings.HasPrefix(protection.Strip(child), lockName) {
			return "", 0, errorf("protected id %s already names %s, which is not a %q node: use one id per lock name", d.id, framework.JoinPath(basePath, child), lockName)
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
		return "", 0, errorf("adopt %s: %w", nodePath, err)
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

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
