package framework

import (
	"context"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"
)

// query runs one read or write of the node at path on the current connection,
// under the client's retry loop, and wraps its error with what and path.
func query[T any](ctx context.Context, c *Client, what, path string, op func(conn *zk.Conn, full string) (T, error)) (T, error) {
	var out T
	full, err := c.fullPath(path, false)
	if err != nil {
		return out, err
	}
	err = c.core.retryLoop(ctx, what, c.ns, func(ctx context.Context, conn *zk.Conn, _ int) error {
		var err error
		out, err = do(ctx, c.core, func() (T, error) { return op(conn, full) })
		return err
	})
	if err != nil {
		var zero T
		return zero, wrapErr(what, path, err)
	}
	return out, nil
}

// nodeResult carries what the read calls return.
type nodeResult struct {
	data     []byte
	children []string
	stat     *zk.Stat
	watch    <-chan zk.Event
}

// Exists returns the node's Stat, or nil and no error when the node does not exist.
func (c *Client) Exists(ctx context.Context, path string) (*zk.Stat, error) {
	r, err := query(ctx, c, "exists", path, func(conn *zk.Conn, full string) (nodeResult, error) {
		ok, st, err := conn.Exists(full)
		if !ok {
			st = nil
		}
		return nodeResult{stat: st}, err
	})
	return r.stat, err
}

// ExistsW is Exists that also leaves a watch: on creation when the node is absent (the
// Stat is nil), else on change or deletion. The channel receives one event, whose
// Path is path as given (relative to the namespace), and is then closed; it also
// fires (EventNotWatching) when the session ends.
func (c *Client) ExistsW(ctx context.Context, path string) (*zk.Stat, <-chan zk.Event, error) {
	r, err := query(ctx, c, "exists", path, func(conn *zk.Conn, full string) (nodeResult, error) {
		ok, st, ch, err := conn.ExistsW(full)
		if !ok {
			st = nil
		}
		return nodeResult{stat: st, watch: ch}, err
	})
	return r.stat, c.relWatch(r.watch), err
}

// GetData returns the node's data and Stat; errors.Is(err, zk.ErrNoNode) when absent.
// On a Compressed view it returns the data decompressed, or the Stat and an error
// matching ErrDecompression when the data does not decompress.
func (c *Client) GetData(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	r, err := query(ctx, c, "get data", path, func(conn *zk.Conn, full string) (nodeResult, error) {
		data, st, err := conn.Get(full)
		return nodeResult{data: data, stat: st}, err
	})
	if err != nil {
		return nil, nil, err
	}
	data, err := c.decompress(path, r.data)
	if err != nil {
		return nil, r.stat, err
	}
	return data, r.stat, nil
}

// GetDataW is GetData that also leaves a watch for the node's next change or deletion;
// the event's Path is relative to the namespace, as in ExistsW.
func (c *Client) GetDataW(ctx context.Context, path string) ([]byte, *zk.Stat, <-chan zk.Event, error) {
	r, err := query(ctx, c, "get data", path, func(conn *zk.Conn, full string) (nodeResult, error) {
		data, st, ch, err := conn.GetW(full)
		return nodeResult{data: data, stat: st, watch: ch}, err
	})
	watch := c.relWatch(r.watch)
	if err != nil {
		return nil, nil, watch, err
	}
	data, err := c.decompress(path, r.data)
	if err != nil {
		return nil, r.stat, watch, err // the watch is armed: the next write fires it
	}
	return data, r.stat, watch, nil
}

// SetData sets the node's data if its version is version (-1 for any) and returns the
// new Stat; errors.Is(err, zk.ErrBadVersion) on a version mismatch. On a Compressed
// view it writes data compressed.
func (c *Client) SetData(ctx context.Context, path string, data []byte, version int32) (*zk.Stat, error) {
	if c.compressed {
		var err error
		if data, err = c.compress(path, data); err != nil {
			return nil, wrapErr("set data", path, err)
		}
	}
	return query(ctx, c, "set data", path, func(conn *zk.Conn, full string) (*zk.Stat, error) {
		return conn.Set(full, data, version)
	})
}

// Children returns the names of the node's children (in no particular order) and its Stat.
func (c *Client) Children(ctx context.Context, path string) ([]string, *zk.Stat, error) {
	r, err := query(ctx, c, "get children", path, func(conn *zk.Conn, full string) (nodeResult, error) {
		children, st, err := conn.Children(full)
		return nodeResult{children: children, stat: st}, err
	})
	return r.children, r.stat, err
}

// ChildrenW is Children that also leaves a watch for the next change of the children
// (or the node's deletion); the event's Path is relative to the namespace, as in ExistsW.
func (c *Client) ChildrenW(ctx context.Context, path string) ([]string, *zk.Stat, <-chan zk.Event, error) {
	r, err := query(ctx, c, "get children", path, func(conn *zk.Conn, full string) (nodeResult, error) {
		children, st, ch, err := conn.ChildrenW(full)
		return nodeResult{children: children, stat: st, watch: ch}, err
	})
	return r.children, r.stat, c.relWatch(r.watch), err
}

// CreateContainers creates path and its missing ancestors as containers, as Curator's
// createContainers; an existing node is fine.
func (c *Client) CreateContainers(ctx context.Context, path string) error {
	full, err := c.fullPath(path, false)
	if err != nil {
		return err
	}
	err = c.core.retryLoop(ctx, "create containers", c.ns, func(ctx context.Context, conn *zk.Conn, _ int) error {
		return c.core.ensureDir(ctx, conn, full, true)
	})
	return wrapErr("create containers", path, err)
}

// Transaction runs ops atomically (all or none). Each op is a *zk.CreateRequest,
// *zk.DeleteRequest, *zk.SetDataRequest or *zk.CheckVersionRequest with a
// namespace-relative path (a sequential create of "/" makes a child of the namespace
// root); the ops are copied, never modified. A create with a nil ACL
// gets the ACL provider's, and nil data gets the default data. Created paths in the
// results have the namespace stripped. The per-op errors are in the results.
// Like every operation it is retried after a connection loss, so a transaction
// whose reply was lost may be sent twice and report BadVersion or NodeExists
// although its first attempt applied: when that matters, include an op whose
// effect can be checked afterwards (a marker node).
func (c *Client) Transaction(ctx context.Context, ops ...any) ([]zk.MultiResponse, error) {
	fixed, err := c.fixOps(ops)
	if err != nil {
		return nil, err
	}
	var res []zk.MultiResponse
	err = c.core.retryLoop(ctx, "transaction", c.ns, func(ctx context.Context, conn *zk.Conn, _ int) error {
		res, err = do(ctx, c.core, func() ([]zk.MultiResponse, error) { return conn.Multi(fixed...) })
		return err
	})
	return c.multiResult(res, err, len(ops))
}

// TransactionOnce is Transaction that sends ops at most once: it waits up to
// the connection timeout for a connection, and a connection loss, after
// which ops may or may not have applied, is returned (matching
// zk.ErrConnectionClosed) instead of sending them again. It is for
// transactions that must not apply twice, whose caller looks at the nodes
// before it tries again.
func (c *Client) TransactionOnce(ctx context.Context, ops ...any) ([]zk.MultiResponse, error) {
	fixed, err := c.fixOps(ops)
	if err != nil {
		return nil, err
	}
	began := time.Now()
	conn, err := c.core.waitReady(ctx, c.core.cfg.connectionTimeout, false)
	var res []zk.MultiResponse
	defer func() { c.core.met.operation("transaction", began, err) }()
	if err == nil {
		err = c.core.prepare(ctx, conn, c.ns)
	}
	if err == nil {
		res, err = do(ctx, c.core, func() ([]zk.MultiResponse, error) { return conn.Multi(fixed...) })
	}
	return c.multiResult(res, err, len(ops))
}

// fixOps copies ops for the server (see fixOp).
func (c *Client) fixOps(ops []any) ([]any, error) {
	fixed := make([]any, len(ops))
	for i, op := range ops {
		f, err := c.fixOp(op)
		if err != nil {
			return nil, wrapf(err, "transaction op %d", i)
		}
		fixed[i] = f
	}
	return fixed, nil
}

// multiResult strips the namespace from created paths and wraps err.
func (c *Client) multiResult(res []zk.MultiResponse, err error, n int) ([]zk.MultiResponse, error) {
	for i := range res {
		if res[i].String != "" {
			res[i].String = c.relPath(res[i].String)
		}
	}
	if err != nil {
		return res, wrapf(err, "transaction of %d ops", n)
	}
	return res, nil
}

func (c *Client) fixOp(op any) (any, error) {
	switch o := op.(type) {
	case *zk.CreateRequest:
		if o == nil {
			break
		}
		full, err := c.fullPath(o.Path, o.Flags&zk.FlagSequence != 0)
		if err != nil {
			return nil, err
		}
		cp := *o
		cp.Path = full
		if cp.Acl == nil {
			cp.Acl = c.core.aclFor(full)
		}
		if cp.Data == nil {
			cp.Data = c.core.cfg.defaultData
		}
		return &cp, nil
	case *zk.DeleteRequest:
		if o != nil {
			return c.rebased(o.Path, func(full string) any { cp := *o; cp.Path = full; return &cp })
		}
	case *zk.SetDataRequest:
		if o != nil {
			return c.rebased(o.Path, func(full string) any { cp := *o; cp.Path = full; return &cp })
		}
	case *zk.CheckVersionRequest:
		if o != nil {
			return c.rebased(o.Path, func(full string) any { cp := *o; cp.Path = full; return &cp })
		}
	default:
		return nil, fmt.Errorf("unsupported op type %T (want *zk.CreateRequest, *zk.DeleteRequest, *zk.SetDataRequest or *zk.CheckVersionRequest)", op)
	}
	return nil, fmt.Errorf("nil %T", op)
}

// rebased validates path and returns the copy of an op that withPath makes for
// the namespaced path.
func (c *Client) rebased(path string, withPath func(full string) any) (any, error) {
	full, err := c.fullPath(path, false)
	if err != nil {
		return nil, err
	}
	return withPath(full), nil
}
