package framework

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework/internal/gozk"
)

// ZooKeeper's opcodes of a multiRead (ZooDefs.OpCode): the request, and the
// two reads it may hold. go-zookeeper v1.0.4 has no multiRead.
const (
	opGetData     int32 = 4
	opGetChildren int32 = 8
	opMultiError  int32 = -1 // a result's type when its op failed, and the end marker's
)

// opMultiRead is the multiRead opcode; tests send one the server does not
// know in its place.
var opMultiRead int32 = 22

// maxMultiRead bounds a MultiRead's request: ZooKeeper's default
// jute.maxbuffer, past which the server closes the connection.
const maxMultiRead = 1<<20 - 1

// ErrMultiReadUnsupported is MultiRead's error when the server is older than
// 3.6, which has no multiRead; such a server closes the connection after it.
var ErrMultiReadUnsupported = errors.New("framework: the server does not support multiRead (it needs ZooKeeper 3.6 or later)")

// ReadOp is one read of a MultiRead, made by GetDataOp or ChildrenOp.
type ReadOp struct {
	path     string
	children bool
}

// GetDataOp reads the node's data and Stat, as GetData does.
func GetDataOp(path string) ReadOp { return ReadOp{path: path} }

// ChildrenOp lists the node's children, as Children does, without a Stat.
func ChildrenOp(path string) ReadOp { return ReadOp{path: path, children: true} }

// ReadResult is what one ReadOp of a MultiRead found: Data and Stat for a
// GetDataOp, Children for a ChildrenOp, or Err, naming the op's path as
// GetData's and Children's errors do (matching zk.ErrNoNode when the node
// does not exist, zk.ErrNoAuth when the client may not read it; for a
// GetDataOp on a Compressed view, the Stat and an error matching
// ErrDecompression when the data does not decompress).
type ReadResult struct {
	Data     []byte
	Stat     *zk.Stat
	Children []string
	Err      error
}

// MultiRead runs ops in one request (ZooKeeper 3.6's multiRead) and returns
// their results in the order of ops. The server answers the ops one after
// another, in order with the client's other requests; one that fails does
// not stop the others, and reports its error in its result. The call is
// retried under the retry policy as a whole; it fails before any request on an invalid path
// (ErrInvalidPath) or a request above ZooKeeper's default 1 MB limit
// (ErrInvalidArgument), and on a server older than 3.6
// (ErrMultiReadUnsupported). It leaves no watch.
func (c *Client) MultiRead(ctx context.Context, ops ...ReadOp) ([]ReadResult, error) {
	if len(ops) == 0 {
		return nil, nil
	}
	body := make([]byte, 0, 64*len(ops))
	for _, op := range ops {
		full, err := c.fullPath(op.path, false)
		if err != nil {
			return nil, wrapErr("multi read", op.path, err)
		}
		kind := opGetData
		if op.children {
			kind = opGetChildren
		}
		body = appendMultiHeader(body, kind, false)
		body = binary.BigEndian.AppendUint32(body, uint32(len(full)))
		body = append(body, full...)
		body = append(body, 0) // watch: false
	}
	body = appendMultiHeader(body, opMultiError, true)
	if len(body) > maxMultiRead {
		return nil, invalidArg("multi read of %d ops: the request's %d bytes are above ZooKeeper's default limit of %d", len(ops), len(body), maxMultiRead)
	}
	k := c.core
	var out []ReadResult
	err := k.retryLoop(ctx, "multiRead", c.ns, func(ctx context.Context, _ *zk.Conn, _ int) error {
		l, err := k.link()
		if err != nil {
			return err
		}
		reply, err := l.Do(ctx, opMultiRead, body)
		if err != nil {
			return err
		}
		out, err = parseMultiRead(reply.Body, ops)
		return err
	})
	if err != nil {
		if errors.Is(err, gozk.ErrUnimplemented) {
			err = fmt.Errorf("%w: %w", ErrMultiReadUnsupported, err)
		}
		return nil, wrapErr("multi read", ops[0].path, err)
	}
	for i := range out {
		r := &out[i]
		switch {
		case r.Err != nil && ops[i].children:
			r.Err = wrapErr("children", ops[i].path, r.Err)
		case r.Err != nil:
			r.Err = wrapErr("get data", ops[i].path, r.Err)
		default:
			if !ops[i].children {
				if r.Data, r.Err = c.decompress(ops[i].path, r.Data); r.Err != nil {
					r.Data = nil
				}
			}
		}
	}
	return out, nil
}

// link returns the connection of the current session, on which requests of
// the client's own go out.
func (k *core) link() (*gozk.Link, error) {
	k.mu.Lock()
	g := k.sess.gate
	k.mu.Unlock()
	if g == nil {
		return nil, zk.ErrConnectionClosed
	}
	return g.Link()
}

// appendMultiHeader appends a MultiHeader: type, done, err (-1 on the end
// marker, 0 otherwise).
func appendMultiHeader(b []byte, kind int32, done bool) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(kind))
	flag, code := byte(0), int32(0)
	if done {
		flag, code = 1, opMultiError
	}
	b = append(b, flag)
	return binary.BigEndian.AppendUint32(b, uint32(code))
}
