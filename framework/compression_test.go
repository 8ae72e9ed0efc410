package framework_test

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/zkcurator/zkcurator/framework"
)

// curatorHello is what Curator 5.4's GzipCompressionProvider.compress
// returned for "hello hello hello" (run through the installed
// curator-framework.jar; TestCompressedNodeAcrossLanguages checks the live jar).
const curatorHello = "1f8b0800000000000000cb48cdc9c957c84090008088f9e511000000"

func TestCompressGzipFrameIsCurators(t *testing.T) {
	var p framework.GzipCompression
	curator, _ := hex.DecodeString(curatorHello)
	for _, data := range [][]byte{{}, []byte("hello hello hello"), bytes.Repeat([]byte("config a=1 b=2 "), 500)} {
		out, err := p.Compress("/n", data)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out[:10], curator[:10]) {
			t.Errorf("header of %d bytes is %x, Curator writes %x", len(data), out[:10], curator[:10])
		}
		r, err := gzip.NewReader(bytes.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		back, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(back, data) {
			t.Errorf("Go's gzip reader read %d bytes (%v) from what Compress wrote for %d", len(back), err, len(data))
		}
		if back, err := p.Decompress("/n", out); err != nil || !bytes.Equal(back, data) {
			t.Errorf("Decompress of %d bytes: %d bytes, %v", len(data), len(back), err)
		}
	}
	got, err := p.Decompress("/n", curator)
	if err != nil || string(got) != "hello hello hello" {
		t.Errorf("Decompress of Curator's bytes = %q, %v", got, err)
	}
	if _, err := p.Decompress("/n", []byte("plain")); err == nil {
		t.Error("Decompress of data that is not gzip succeeded")
	}
}

func TestCompressedCreateSetDataGetData(t *testing.T) {
	srv := sharedServer(t)
	c := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	root := testRoot(t)
	data := []byte(strings.Repeat("compressed data ", 20))

	if _, err := c.Create(ctx, root, data, framework.Compressed(), framework.CreatingParentsIfNeeded()); err != nil {
		t.Fatal(err)
	}
	raw, _, err := c.GetData(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(raw, data) || !bytes.HasPrefix(raw, []byte{0x1f, 0x8b}) || len(raw) >= len(data) {
		t.Fatalf("the node holds %x, want gzip data shorter than %d bytes", raw, len(data))
	}
	cc := c.Compressed()
	if !cc.IsCompressed() || c.IsCompressed() {
		t.Fatal("Compressed changed the client it was called on, or made no compressed view")
	}
	if got, _, err := cc.GetData(ctx, root); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("compressed GetData = %q, %v", got, err)
	}

	next := []byte("next value")
	if _, err := cc.SetData(ctx, root, next, -1); err != nil {
		t.Fatal(err)
	}
	raw, _, _ = c.GetData(ctx, root)
	if back, err := (framework.GzipCompression{}).Decompress(root, raw); err != nil || !bytes.Equal(back, next) {
		t.Fatalf("SetData through the view wrote %x (%q, %v)", raw, back, err)
	}
	got, _, watch, err := cc.GetDataW(ctx, root)
	if err != nil || !bytes.Equal(got, next) || watch == nil {
		t.Fatalf("compressed GetDataW = %q, %v", got, err)
	}

	// The view's namespace views compress too; a plain node does not read.
	if _, err := cc.UsingNamespace("").Create(ctx, root+"/child", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if raw, _, _ := c.GetData(ctx, root+"/child"); !bytes.HasPrefix(raw, []byte{0x1f, 0x8b}) {
		t.Errorf("a namespace view of the compressed view wrote %x", raw)
	}
	if _, err := c.Create(ctx, root+"/plain", []byte("plain text, not gzip")); err != nil {
		t.Fatal(err)
	}
	_, stat, err := cc.GetData(ctx, root+"/plain")
	if !errors.Is(err, framework.ErrDecompression) || !errors.Is(err, gzip.ErrHeader) || !strings.Contains(err.Error(), root+"/plain") {
		t.Errorf("compressed GetData of plain data: %v, want ErrDecompression and gzip.ErrHeader naming the path", err)
	}
	if stat == nil || stat.DataLength != int32(len("plain text, not gzip")) {
		t.Errorf("compressed GetData of plain data gave Stat %+v, want the node's", stat)
	}
	if strings.Count(err.Error(), "framework:") != 1 {
		t.Errorf("the error names the package more than once: %v", err)
	}
}

// reverse is a provider that reverses the data, to show that the client's
// provider is the one used.
type reverse struct{}

func (reverse) Compress(_ string, data []byte) ([]byte, error) {
	out := make([]byte, len(data))
	for i, b := range data {
		out[len(data)-1-i] = b
	}
	return out, nil
}

func (r reverse) Decompress(path string, data []byte) ([]byte, error) { return r.Compress(path, data) }

func TestCompressWithProvider(t *testing.T) {
	if _, err := framework.NewClient("127.0.0.1:2181", testPolicy, framework.WithCompressionProvider(nil)); !errors.Is(err, framework.ErrInvalidArgument) {
		t.Errorf("a nil compression provider: %v, want ErrInvalidArgument", err)
	}
	srv := sharedServer(t)
	c := newClient(t, srv.ConnectString(), framework.WithCompressionProvider(reverse{}))
	ctx := testCtx(t)
	root := testRoot(t)
	if _, err := c.Compressed().Create(ctx, root, []byte("abc")); err != nil {
		t.Fatal(err)
	}
	if raw, _, _ := c.GetData(ctx, root); string(raw) != "cba" {
		t.Errorf("the provider wrote %q, want %q", raw, "cba")
	}
	if got, _, _ := c.Compressed().GetData(ctx, root); string(got) != "abc" {
		t.Errorf("the provider read %q, want %q", got, "abc")
	}
}
