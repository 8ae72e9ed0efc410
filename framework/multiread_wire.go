package framework

import (
	"encoding/binary"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework/internal/gozk"
)

// statLen is the bytes of a Stat on the wire: eleven fields, of 8 and 4 bytes.
const statLen = 68

// errMultiReply reports a multiRead reply that does not read as one.
var errMultiReply = fmt.Errorf("%w: malformed multiRead reply", zk.ErrUnknown)

// parseMultiRead decodes a multiRead's reply (ZooKeeper's MultiResponse):
// per op a MultiHeader and its result (GetDataResponse, GetChildrenResponse
// or ErrorResponse), then the end marker. Data is copied out of b, so that
// a node held does not keep the whole reply alive.
func parseMultiRead(b []byte, ops []ReadOp) ([]ReadResult, error) {
	out := make([]ReadResult, len(ops))
	r := wireReader{b: b}
	for i, op := range ops {
		kind, done, code := r.int32(), r.byte(), r.int32()
		if r.bad || done != 0 {
			return nil, errMultiReply
		}
		switch {
		case kind == opMultiError:
			r.int32() // ErrorResponse: the code again
			out[i].Err = gozk.CodeError(code)
			if out[i].Err == nil {
				return nil, errMultiReply
			}
		case kind == opGetData && !op.children:
			out[i].Data = r.buffer()
			out[i].Stat = r.stat()
		case kind == opGetChildren && op.children:
			n := r.int32()
			if n > 0 && int(n) <= len(r.b)/4 {
				out[i].Children = make([]string, n)
				for j := range out[i].Children {
					out[i].Children[j] = r.string()
				}
			} else if n != 0 && n != -1 {
				return nil, errMultiReply
			}
		default:
			return nil, errMultiReply
		}
		if r.bad {
			return nil, errMultiReply
		}
	}
	if kind, done := r.int32(), r.byte(); r.bad || kind != opMultiError || done != 1 {
		return nil, errMultiReply
	}
	return out, nil
}

// wireReader reads jute's big-endian encoding off b; a read past the end
// sets bad and returns zeros.
type wireReader struct {
	b   []byte
	bad bool
}

func (r *wireReader) take(n int) []byte {
	if r.bad || n < 0 || n > len(r.b) {
		r.bad = true
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *wireReader) byte() byte {
	if v := r.take(1); v != nil {
		return v[0]
	}
	return 0
}

func (r *wireReader) int32() int32 {
	if v := r.take(4); v != nil {
		return int32(binary.BigEndian.Uint32(v))
	}
	return 0
}

func (r *wireReader) int64() int64 {
	if v := r.take(8); v != nil {
		return int64(binary.BigEndian.Uint64(v))
	}
	return 0
}

// buffer reads a length and as many bytes, copied; nil for length -1.
func (r *wireReader) buffer() []byte {
	n := r.int32()
	if n < 0 {
		return nil
	}
	v := r.take(int(n))
	if v == nil {
		return nil
	}
	return append(make([]byte, 0, len(v)), v...)
}

func (r *wireReader) string() string {
	return string(r.take(int(r.int32())))
}

func (r *wireReader) stat() *zk.Stat {
	if r.bad || len(r.b) < statLen {
		r.bad = true
		return nil
	}
	return &zk.Stat{
		Czxid: r.int64(), Mzxid: r.int64(), Ctime: r.int64(), Mtime: r.int64(),
		Version: r.int32(), Cversion: r.int32(), Aversion: r.int32(),
		EphemeralOwner: r.int64(), DataLength: r.int32(), NumChildren: r.int32(), Pzxid: r.int64(),
	}
}
