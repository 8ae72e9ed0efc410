package framework

import (
	"context"
	"errors"
	"strings"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"
)

// fullPath validates a namespace-relative path and returns the path on the server.
// A sequential create of "/" names children of the namespace root ("/ns/"), as it
// names children of the server's root without a namespace, never siblings of it.
func (c *Client) fullPath(path string, sequential bool) (string, error) {
	if c.nsErr != nil {
		return "", c.nsErr
	}
	if err := validatePath(path, sequential); err != nil {
		return "", err
	}
	switch {
	case c.ns == "":
		return path, nil
	case path == "/" && !sequential:
		return c.ns, nil
	}
	return c.ns + path, nil
}

// relPath strips the namespace from a path on the server, as Curator does for returned paths.
func (c *Client) relPath(full string) string {
	switch {
	case c.ns == "":
		return full
	case full == c.ns:
		return "/"
	case strings.HasPrefix(full, c.ns+"/"):
		return full[len(c.ns):]
	}
	return full
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
	if err := k.ensureDir(ctx, conn, ns, true); err != nil {
		k.log.Warn("cannot create the namespace root", zap.String("namespace", ns), zap.Error(err))
		return
	}
	k.mu.Lock()
	k.nsReady[ns] = true
	k.mu.Unlock()
}

// ensureDir makes sure path exists, creating it and any missing ancestors with empty
// data (as containers when asked). A node that appears concurrently is fine.
func (k *core) ensureDir(ctx context.Context, conn *zk.Conn, path string, containers bool) error {
	if path == "/" {
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
