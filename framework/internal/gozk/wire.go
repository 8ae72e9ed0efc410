package gozk

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// ZooKeeper's opcodes of the requests this package sends itself
// (ZooDefs.OpCode); go-zookeeper v1.0.4 has none of them.
const (
	OpRemoveWatches int32 = 18
	OpAddWatch      int32 = 106
	opExists        int32 = 3 // for tests: a request both clients know
)

// The watcher types of a removeWatches request (ZooKeeper's WatcherType):
// 3.6 added the two persistent ones, which remove only the watch of that
// mode and leave a one-shot watch on the same path.
const (
	WatcherChildren            int32 = 1
	WatcherData                int32 = 2
	WatcherAny                 int32 = 3
	WatcherPersistent          int32 = 4
	WatcherPersistentRecursive int32 = 5
)

// The modes of an addWatch request (ZooDefs.AddWatchModes).
const (
	AddWatchPersistent          int32 = 0
	AddWatchPersistentRecursive int32 = 1
)

// The xids of the server's messages that are no reply to a request.
const (
	xidNotification int32 = -1
	xidPing         int32 = -2
)

// ZooKeeper's error codes this package maps itself (KeeperException.Code).
const (
	codeOK             int32 = 0
	codeConnectionLoss int32 = -4
	codeUnimplemented  int32 = -6
	codeMarshalling    int32 = -5
	codeBadArguments   int32 = -8
	codeNoNode         int32 = -101
	codeNoAuth         int32 = -102
	codeAuthFailed     int32 = -115
	codeSessionExpired int32 = -112
	codeSessionMoved   int32 = -118
	codeNoWatcher      int32 = -121
	codeRequiresSASL   int32 = -124 // SESSIONCLOSEDREQUIRESASLAUTH
)

var (
	// ErrUnimplemented is the server's answer to an opcode it does not know
	// (a server older than the request); the server closes the connection
	// after it.
	ErrUnimplemented = errors.New("zk: operation is unimplemented by the server")
	// ErrMarshalling is the server's answer to a request it could not
	// read, such as a removeWatches of a watcher type it does not know.
	ErrMarshalling = errors.New("zk: the server could not read the request")
	// ErrNoWatcher is the server's answer to removeWatches for a watch the
	// connection does not hold.
	ErrNoWatcher = errors.New("zk: no such watcher")
	// ErrSASLRequired is the answer of a server that requires SASL
	// (zookeeper.sessionRequireClientSASLAuth) to a request of a session
	// that did not authenticate, or whose authentication failed; the server
	// closes the connection after it.
	ErrSASLRequired = errors.New("zk: the server requires SASL authentication of the session")
)

// codeError returns the error of a reply's error code, nil for none: the
// errors go-zookeeper defines where it has one, so that callers match them
// with errors.Is as they match go-zookeeper's.
func codeError(code int32) error {
	switch code {
	case codeOK:
		return nil
	case codeConnectionLoss:
		return zk.ErrConnectionClosed
	case codeUnimplemented:
		return ErrUnimplemented
	case codeMarshalling:
		return ErrMarshalling
	case codeBadArguments:
		return zk.ErrBadArguments
	case codeNoNode:
		return zk.ErrNoNode
	case codeNoAuth:
		return zk.ErrNoAuth
	case codeAuthFailed:
		return zk.ErrAuthFailed
	case codeSessionExpired:
		return zk.ErrSessionExpired
	case codeSessionMoved:
		return zk.ErrSessionMoved
	case codeNoWatcher:
		return ErrNoWatcher
	case codeRequiresSASL:
		return ErrSASLRequired
	}
	return fmt.Errorf("%w: server error code %d", zk.ErrUnknown, code)
}

// CodeError is codeError for the results inside a reply, such as the ops
// of a multiRead, each with an error code of its own.
func CodeError(code int32) error { return codeError(code) }

// PathRequest is the body of a request that is a path and an int, as
// addWatch (path, mode) and removeWatches (path, watcher type) are.
func PathRequest(path string, n int32) []byte {
	b := make([]byte, 0, 4+len(path)+4)
	b = binary.BigEndian.AppendUint32(b, uint32(len(path)))
	b = append(b, path...)
	return binary.BigEndian.AppendUint32(b, uint32(n))
}

// requestFrame is a whole request as it goes on the wire: length, xid,
// opcode, body.
func requestFrame(xid, op int32, body []byte) []byte {
	b := make([]byte, 0, 12+len(body))
	b = binary.BigEndian.AppendUint32(b, uint32(8+len(body)))
	b = binary.BigEndian.AppendUint32(b, uint32(xid))
	b = binary.BigEndian.AppendUint32(b, uint32(op))
	return append(b, body...)
}

// Notification is a watch notification as the server sent it.
type Notification struct {
	Type  zk.EventType
	State zk.State
	Path  string
}

// parseNotification decodes a notification's body (after its reply
// header): type, state, path.
func parseNotification(b []byte) (Notification, bool) {
	if len(b) < 12 {
		return Notification{}, false
	}
	n := int(int32(binary.BigEndian.Uint32(b[8:12])))
	if n < 0 {
		n = 0
	}
	if len(b) < 12+n {
		return Notification{}, false
	}
	return Notification{
		Type:  zk.EventType(int32(binary.BigEndian.Uint32(b[0:4]))),
		State: zk.State(int32(binary.BigEndian.Uint32(b[4:8]))),
		Path:  string(b[12 : 12+n]),
	}, true
}
