package framework

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// ErrDecompression reports node data that a Compressed view could not
// decompress (it was not written compressed, or by another provider); the
// error also matches the provider's own, and comes with the node's Stat.
var ErrDecompression = errors.New("framework: data does not decompress")

// CompressionProvider compresses node data on the way to ZooKeeper and
// decompresses it on the way back, as Curator's CompressionProvider. It must
// be safe for concurrent use; path is the node's path (namespace-relative),
// for providers that choose by path.
type CompressionProvider interface {
	Compress(path string, data []byte) ([]byte, error)
	Decompress(path string, data []byte) ([]byte, error)
}

// GzipCompression is the default provider, Curator's GzipCompressionProvider:
// gzip (RFC 1952) with the 10-byte header Curator 5.4 writes (no flags, no
// modification time, XFL 0, OS 0), so that the frame is the one Curator
// writes; the deflate stream inside is Go's, which any gzip reader (Curator's
// included) decodes. Decompress reads any gzip data, Curator's and Java's
// GZIPOutputStream's among them.
type GzipCompression struct{}

// gzipHeader is the header Curator 5.4's GzipCompressionProvider writes:
// magic, deflate, no flags, mtime 0, XFL 0, OS 0.
var gzipHeader = [10]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0}

// Compress returns data as a gzip member with Curator's header.
func (GzipCompression) Compress(_ string, data []byte) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(len(data)/2 + 32)
	b.Write(gzipHeader[:])
	w, err := flate.NewWriter(&b, flate.DefaultCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(data); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	var trailer [8]byte
	binary.LittleEndian.PutUint32(trailer[:4], crc32.ChecksumIEEE(data))
	binary.LittleEndian.PutUint32(trailer[4:], uint32(len(data)))
	b.Write(trailer[:])
	return b.Bytes(), nil
}

// Decompress returns the data of gzip input; input that is not gzip is an
// error.
func (GzipCompression) Decompress(_ string, data []byte) ([]byte, error) {
	r, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	out, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return out, r.Close()
}

// Compressed makes a Create compress the node's data with the client's
// CompressionProvider (WithCompressionProvider; gzip by default), as
// Curator's create().compressed().
func Compressed() CreateOption {
	return func(o *createOptions) { o.compressed = true }
}

// WithCompressionProvider sets the provider that Compressed creates and the
// Compressed view use (default GzipCompression, as Curator's default).
func WithCompressionProvider(p CompressionProvider) Option {
	return func(c *config) { c.compression = p }
}

// Compressed returns a view of the client, sharing its connection, state,
// listeners and lifetime, whose Create and SetData compress the data they
// write and whose GetData and GetDataW decompress what they read, as
// Curator's compressed() on each of those builders. The other operations,
// Transaction among them, are the client's own. A recipe given the view
// keeps compressed data: a cache built on it holds decompressed data, as
// Curator's CuratorCache with COMPRESSED_DATA.
func (c *Client) Compressed() *Client {
	v := *c
	v.compressed = true
	return &v
}

// IsCompressed reports whether the client is a Compressed view.
func (c *Client) IsCompressed() bool { return c.compressed }

// compress compresses data for path with the client's provider.
func (c *Client) compress(path string, data []byte) ([]byte, error) {
	out, err := c.core.cfg.compression.Compress(path, data)
	if err != nil {
		return nil, fmt.Errorf("compress: %w", err)
	}
	return out, nil
}

// decompress decompresses data read from path when the client is a
// Compressed view.
func (c *Client) decompress(path string, data []byte) ([]byte, error) {
	if !c.compressed {
		return data, nil
	}
	out, err := c.core.cfg.compression.Decompress(path, data)
	if err != nil {
		return nil, wrapErr("get data", path, fmt.Errorf("%w: %w", ErrDecompression, err))
	}
	return out, nil
}
