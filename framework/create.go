package framework

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/protection"
)

// maxTTL is ZooKeeper's largest TTL (EphemeralType.TTL's 40-bit millisecond field).
const maxTTL = time.Duration(0xFFFFFFFFFF) * time.Millisecond

// CreateOption configures one Create.
type CreateOption func(*createOptions)

type createOptions struct {
	mode             CreateMode
	parents          bool
	parentContainers bool
	protected        bool
	protectedID      string
	acl              []zk.ACL
	ttl              time.Duration
	ttlSet           bool
	compressed       bool
}

// WithMode sets the kind of node to create (default Persistent).
func WithMode(m CreateMode) CreateOption {
	return func(o *createOptions) { o.mode = m }
}

// CreatingParentsIfNeeded creates missing parents (persistent, empty, with the ACL
// provider's ACL) when the create fails with zk.ErrNoNode, then creates again.
func CreatingParentsIfNeeded() CreateOption {
	return func(o *createOptions) { o.parents = true }
}

// CreatingParentContainersIfNeeded is CreatingParentsIfNeeded with the parents made as
// containers, which the server removes once they are empty again.
func CreatingParentContainersIfNeeded() CreateOption {
	return func(o *createOptions) { o.parents, o.parentContainers = true, true }
}

// WithProtection uses Curator's protected mode: the node's name gets the prefix
// "_c_<uuid>-" (a new id per call), so that when a create's reply is lost the retry
// finds the node instead of creating a second one, and a create that finally fails
// leaves no node behind (it is deleted in the background).
func WithProtection() CreateOption {
	return func(o *createOptions) { o.protected = true }
}

// WithProtectedID is WithProtection with an id the caller keeps (from protection.NewID),
// so that a restarted owner finds its node again: the create first looks for a node
// with that id and returns it (an ephemeral one only if the current session owns it;
// one left by an older session is deleted and made anew). The background clean-up of
// a failed create deletes only nodes of the id that no one has written since their
// creation, and a later create with the id waits until that clean-up is done, so it
// never removes a node that a later create, or an owner that adopted the node by
// writing it, holds.
func WithProtectedID(id string) CreateOption {
	return func(o *createOptions) { o.protected, o.protectedID = true, id }
}

// WithACL sets the new node's ACL instead of the ACL provider's.
func WithACL(acl ...zk.ACL) CreateOption {
	return func(o *createOptions) { o.acl = acl }
}

// WithTTL sets the TTL of a PersistentWithTTL or PersistentSequentialWithTTL node
// (from 1 ms to ZooKeeper's maximum of 2^40-1 ms). The server must run with
// zookeeper.extendedTypesEnabled=true; a server without it fails the create with an
// error matching ErrTTLNotEnabled.
func WithTTL(ttl time.Duration) CreateOption {
	return func(o *createOptions) { o.ttl, o.ttlSet = ttl, true }
}

func (o *createOptions) validate(path string) error {
	switch {
	case !o.mode.valid():
		return fmt.Errorf("framework: create %q: unknown create mode %d", path, int(o.mode))
	case o.mode.IsTTL() && !o.ttlSet:
		return fmt.Errorf("framework: create %q: mode %v needs WithTTL", path, o.mode)
	case o.ttlSet && !o.mode.IsTTL():
		return fmt.Errorf("framework: create %q: WithTTL(%v) needs mode PersistentWithTTL or PersistentSequentialWithTTL, not %v", path, o.ttl, o.mode)
	case o.ttlSet && (o.ttl < time.Millisecond || o.ttl > maxTTL):
		return fmt.Errorf("framework: create %q: TTL %v is outside 1ms..%v", path, o.ttl, maxTTL)
	case o.protectedID != "" && !protection.IsProtected(protection.Name(o.protectedID, "n")):
		return fmt.Errorf("framework: create %q: protected id %q is not a UUID from protection.NewID", path, o.protectedID)
	}
	return nil
}

// Create creates a node and returns its path (with the server's sequence number for
// sequential modes, and without the namespace). A sequential path ending in "/" names
// a child of that node: Create(ctx, "/", nil, WithMode(PersistentSequential)) makes
// "/0000000001" inside the namespace root, never a sibling of it. Nil data means the default data
// (WithDefaultData); pass []byte{} for empty data. The create runs under the retry
// policy; without WithProtection a create whose reply was lost may fail on retry with
// zk.ErrNodeExists, or leave a sequential node behind, as in ZooKeeper itself. If ctx
// ends while a request is under way the node may still be created, except with
// protection, where it is then deleted in the background.
func (c *Client) Create(ctx context.Context, path string, data []byte, opts ...CreateOption) (string, error) {
	var o createOptions
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.validate(path); err != nil {
		return "", err
	}
	full, err := c.fullPath(path, o.mode.IsSequential())
	if err != nil {
		return "", err
	}
	if data == nil {
		data = c.core.cfg.defaultData
	}
	if o.compressed || c.compressed {
		if data, err = c.compress(path, data); err != nil {
			return "", wrapErr("create", path, err)
		}
	}
	k := c.core
	parent, name := splitPath(full)
	id := o.protectedID
	if o.protected {
		if id == "" {
			id = protection.NewID()
		}
		full = JoinPath(parent, protection.Name(id, name))
	}
	acl := o.acl
	if len(acl) == 0 {
		acl = k.aclFor(full)
	}

	if o.protectedID != "" {
		// A clean-up of an earlier failed create with this id must not meet our node.
		if err := k.bg.awaitCleanup(ctx, protectedPrefix(parent, id)); err != nil {
			return "", wrapErr("create", path, err)
		}
	}

	var created string
	var inflight <-chan result[string] // a create still under way when ctx ended
	sent := false                      // a create request may have reached the server
	err = k.retryLoop(ctx, "create", c.ns, func(ctx context.Context, conn *zk.Conn, attempt int) error {
		if o.protected && (attempt > 0 || o.protectedID != "") {
			found, err := k.findProtected(ctx, conn, parent, id, o.mode)
			if err != nil || found != "" {
				created = found
				return err
			}
		}
		sent = true
		p, pending, err := k.createWithParents(ctx, conn, full, data, acl, &o)
		if pending != nil {
			inflight = pending
		}
		created = p
		return err
	})
	if err != nil {
		if o.protected && sent {
			k.bg.add(k.protectedCleanupTask(parent, id, o.protectedID != "", inflight))
		}
		return "", wrapErr("create", path, err)
	}
	return c.relPath(created), nil
}

// createWithParents creates the node; on zk.ErrNoNode with parents requested it makes
// the missing parents and creates again.
func (k *core) createWithParents(ctx context.Context, conn *zk.Conn, full string, data []byte, acl []zk.ACL, o *createOptions) (string, <-chan result[string], error) {
	p, pending, err := k.createNode(ctx, conn, full, data, acl, o)
	if !errors.Is(err, zk.ErrNoNode) || !o.parents {
		return p, pending, err
	}
	parent, _ := splitPath(full)
	if err := k.ensureDir(ctx, conn, parent, o.parentContainers); err != nil {
		return "", nil, err
	}
	return k.createNode(ctx, conn, full, data, acl, o)
}

func (k *core) createNode(ctx context.Context, conn *zk.Conn, full string, data []byte, acl []zk.ACL, o *createOptions) (string, <-chan result[string], error) {
	r, pending := call(ctx, k, func() (string, error) {
		switch {
		case o.mode == Container:
			return conn.CreateContainer(full, data, zk.FlagContainer, acl)
		case o.mode.IsTTL():
			p, err := conn.CreateTTL(full, data, o.mode.flags(), acl, o.ttl)
			return p, ttlError(err)
		}
		return conn.Create(full, data, o.mode.flags(), acl)
	})
	return r.val, pending, r.err
}

// findProtected looks in parent for the node with protected id id. An ephemeral node
// that an older session of ours left is deleted (it dies with that session anyway, and
// must not be mistaken for the new one); then the create goes ahead.
func (k *core) findProtected(ctx context.Context, conn *zk.Conn, parent, id string, mode CreateMode) (string, error) {
	children, err := do(ctx, k, func() ([]string, error) {
		ch, _, err := conn.Children(parent)
		return ch, err
	})
	if errors.Is(err, zk.ErrNoNode) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	name, ok := protection.Find(children, id)
	if !ok {
		return "", nil
	}
	found := JoinPath(parent, name)
	if !mode.IsEphemeral() {
		return found, nil
	}
	stat, err := do(ctx, k, func() (*zk.Stat, error) {
		ok, st, err := conn.Exists(found)
		if err != nil || !ok {
			return nil, err
		}
		return st, nil
	})
	if err != nil || stat == nil {
		return "", err
	}
	sid := conn.SessionID()
	if stat.EphemeralOwner == sid {
		return found, nil
	}
	k.log.Info("protected node belongs to an older session; deleting it",
		zap.String("path", found), zap.Int64("owner", stat.EphemeralOwner), zap.Int64("sessionID", sid))
	_, err = do(ctx, k, func() (struct{}, error) { return struct{}{}, conn.Delete(found, -1) })
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		k.bg.add(k.deleteTask(found, deleteOptions{version: -1}))
		return "", err
	}
	return "", nil
}
