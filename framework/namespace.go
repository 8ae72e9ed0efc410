package framework

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"
)

// fullPath validates a namespace-relative path and returns the path on the server:
// the connect string's chroot, then the namespace, then path. A sequential create
// of "/" names children of the namespace root ("/ns/"), as it names children of the
// server's root without a namespace, never siblings of it.
func (c *Client) fullPath(path string, sequential bool) (string, error) {
	if c.nsErr != nil {
		return "", c.nsErr
	}
	if err := validatePath(path, sequential); err != nil {
		return "", err
	}
	base := c.core.cfg.chroot + c.ns
	switch {
	case base == "":
		return path, nil
	case path == "/" && !sequential:
		return base, nil
	}
	return base + path, nil
}

// relPath strips the chroot and the namespace from a path on the server, as the
// Java client and Curator do for returned paths.
func (c *Client) relPath(full string) string {
	rel, _ := c.inNamespace(full)
	return rel
}

// inNamespace returns full relative to the view's chroot and namespace, and
// whether it lies inside them (full itself when it does not).
func (c *Client) inNamespace(full string) (string, bool) {
	base := c.core.cfg.chroot + c.ns
	switch {
	case base == "":
		return full, true
	case full == base:
		return "/", true
	case strings.HasPrefix(full, base+"/"):
		return full[len(base):], true
	}
	return full, false
}

// unchrooted returns a path on the server as the Java client's callers see it,
// without the connect string's chroot (the namespace stays).
func (k *core) unchrooted(full string) string {
	switch root := k.cfg.chroot; {
	case root == "":
		return full
	case full == root:
		return "/"
	case strings.HasPrefix(full, root+"/"):
		return full[len(root):]
	}
	return full
}

// ErrNoChroot reports an operation of a client whose connect string names a
// chroot ("host:2181/app") that does not exist on the server. The client never
// creates its chroot (as the Java client, unlike a namespace, whose root
// WithNamespace creates); create it first.
var ErrNoChroot = errors.New("framework: the chroot of the connect string does not exist")

// ensureChroot checks, until it has once found it, that the connect string's
// chroot exists.
func (k *core) ensureChroot(ctx context.Context, conn *zk.Conn) error {
	root := k.cfg.chroot
	if root == "" {
		return nil
	}
	k.mu.Lock()
	done := k.chrootSeen
	k.mu.Unlock()
	if done {
		return nil
	}
	exists, err := do(ctx, k, func() (bool, error) {
		ok, _, err := conn.Exists(root)
		return ok, err
	})
	switch {
	case err != nil:
		return err
	case !exists:
		return fmt.Errorf("%w: %q (create it, or use WithNamespace, whose root the client creates)", ErrNoChroot, root)
	}
	k.mu.Lock()
	k.chrootSeen = true
	k.mu.Unlock()
	return nil
}

// prepare readies a connection for an operation in namespace ns: the chroot
// must exist, and the namespace root is made if need be.
func (k *core) prepare(ctx context.Context, conn *zk.Conn, ns string) error {
	if err := k.ensureChroot(ctx, conn); err != nil {
		return err
	}
	k.ensureNamespace(ctx, conn, ns)
	return nil
}

// ensureNamespace creates the namespace root (and its parents) as containers on first
// use, once per client and namespace. A failure is logged and tried again on the next
// operation, as in Curator: the operation itself reports what matters.
func (k *core) ensureNamespace(ctx context.Context, conn *zk.Conn, ns string) {
	if ns == "" {
		return
	}
	k.mu.Lock()
	done := k.nsReady[ns]
	k.mu.Unlock()
	if done {
		return
	}
	if err := k.ensureDir(ctx, conn, k.cfg.chroot+ns, true); err != nil {
		k.log.Warn("cannot create the namespace root", zap.String("namespace", ns), zap.Error(err))
		return
	}
	k.mu.Lock()
	k.nsReady[ns] = true
	k.mu.Unlock()
}

// ensureDir makes sure path exists, creating it and any missing ancestors with empty
// data (as containers when asked), up to the chroot, which it never creates. A node
// that appears concurrently is fine.
func (k *core) ensureDir(ctx context.Context, conn *zk.Conn, path string, containers bool) error {
	if path == "/" || path == k.cfg.chroot {
		return nil
	}
	exists, err := do(ctx, k, func() (bool, error) {
		ok, _, err := conn.Exists(path)
		return ok, err
	})
	if err != nil || exists {
		return err
	}
	err = k.createDir(ctx, conn, path, containers)
	if errors.Is(err, zk.ErrNoNode) {
		parent, _ := splitPath(path)
		if err := k.ensureDir(ctx, conn, parent, containers); err != nil {
			return err
		}
		err = k.createDir(ctx, conn, path, containers)
	}
	if errors.Is(err, zk.ErrNodeExists) {
		return nil
	}
	return err
}

func (k *core) createDir(ctx context.Context, conn *zk.Conn, path string, container bool) error {
	acl := k.aclFor(path)
	_, err := do(ctx, k, func() (string, error) {
		if container {
			return conn.CreateContainer(path, []byte{}, zk.FlagContainer, acl)
		}
		return conn.Create(path, []byte{}, zk.FlagPersistent, acl)
	})
	return err
}

// wrapErr names the operation and path in err, keeping errors.Is on go-zookeeper's
// sentinels (and ctx errors) working.
func wrapErr(op, path string, err error) error {
	return wrapf(err, "%s %q", op, path)
}
