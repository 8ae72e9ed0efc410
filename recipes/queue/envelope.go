package queue

import (
	"encoding/binary"
	"fmt"

	"github.com/zkcurator/zkcurator/framework"
)

// The envelope is Curator's ItemSerializer: a 4-byte big-endian version,
// then per item the byte 0x01, a 4-byte big-endian length and the item's
// bytes, and the byte 0x02 at the end.
const (
	envelopeVersion = 0x00010001
	opItem          = 0x01
	opEOF           = 0x02
)

// MaxNodeData is the largest envelope a put sends: ZooKeeper refuses a
// request over jute.maxbuffer (1 MB less one byte by default), and 1 KiB is
// left for the request's path and ACL.
const MaxNodeData = 0xfffff - 1024

// maxRequest is the largest request ZooKeeper accepts by default
// (jute.maxbuffer, 1 MB less one byte): over it the server drops the
// connection. requestOverhead bounds what a create request carries besides
// its path and data (headers, flags, the ACL of a few entries).
const (
	maxRequest      = 0xfffff
	requestOverhead = 256
)

// checkRequest returns an error matching ErrInvalidArgument when creating
// nodePath (namespace-relative) with data would make a request larger than
// ZooKeeper accepts.
func checkRequest(c *framework.Client, nodePath string, data []byte) error {
	size := len(c.Namespace()) + len(nodePath) + sequenceLen + len(data) + requestOverhead
	if size > maxRequest {
		return fmt.Errorf("%w: an item of %d bytes under the %d-byte name %.64q... makes a request of about %d bytes, over ZooKeeper's limit of %d bytes",
			ErrInvalidArgument, len(data), len(nodePath)+sequenceLen, nodePath, size, maxRequest)
	}
	return nil
}

// encodeEnvelope returns the envelope of items, or an error matching
// ErrInvalidArgument when it would exceed MaxNodeData.
func encodeEnvelope(items [][]byte) ([]byte, error) {
	size := 5
	for _, it := range items {
		size += 5 + len(it)
	}
	if size > MaxNodeData {
		return nil, fmt.Errorf("%w: %d item(s) make an envelope of %d bytes, over ZooKeeper's node limit of %d bytes",
			ErrInvalidArgument, len(items), size, MaxNodeData)
	}
	out := make([]byte, 0, size)
	out = binary.BigEndian.AppendUint32(out, envelopeVersion)
	for _, it := range items {
		out = append(out, opItem)
		out = binary.BigEndian.AppendUint32(out, uint32(len(it)))
		out = append(out, it...)
	}
	return append(out, opEOF), nil
}

// decodeEnvelope returns the items of an envelope. As Curator's reader, it
// stops at the end marker and ignores what follows it.
func decodeEnvelope(data []byte) ([][]byte, error) {
	if len(data) < 4 {
		return nil, fmt.Errorf("envelope of %d bytes has no version", len(data))
	}
	if v := binary.BigEndian.Uint32(data); v != envelopeVersion {
		return nil, fmt.Errorf("envelope version %#08x, want %#08x", v, envelopeVersion)
	}
	rest := data[4:]
	var items [][]byte
	for {
		if len(rest) == 0 {
			return nil, fmt.Errorf("envelope ends without its end marker after %d item(s)", len(items))
		}
		op := rest[0]
		rest = rest[1:]
		switch op {
		case opEOF:
			return items, nil
		case opItem:
		default:
			return nil, fmt.Errorf("envelope opcode %#02x, want %#02x or %#02x", op, opItem, opEOF)
		}
		if len(rest) < 4 {
			return nil, fmt.Errorf("envelope item %d has no length", len(items))
		}
		n := binary.BigEndian.Uint32(rest)
		rest = rest[4:]
		if n > uint32(len(rest)) {
			return nil, fmt.Errorf("envelope item %d claims %d bytes, %d remain", len(items), n, len(rest))
		}
		items = append(items, rest[:n:n])
		rest = rest[n:]
	}
}
