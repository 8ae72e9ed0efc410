package interop

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
)

// The kinds CompressionCommands.java prints.
const (
	kindData  = "DATA"  // <path> <data>
	kindBytes = "BYTES" // <hex>
)

// TestCompressedNodeAcrossLanguages has Curator write compressed nodes that
// zkcurator reads, and zkcurator write compressed nodes that Curator reads;
// zkcurator's gzip frame starts with the header bytes Curator's
// GzipCompressionProvider writes.
func TestCompressedNodeAcrossLanguages(t *testing.T) {
	const root = "/interop/compressed"
	srv := startZooKeeper(t)
	gc := newGoClient(t, srv.ConnectString())
	java := StartHelper(t, srv.ConnectString())
	ctx := testContext(t, 60*time.Second)
	data := strings.Repeat("config-value-", 40)
	var gzip framework.GzipCompression

	// The provider's bytes: Curator's header, and each side decodes the other's.
	e, err := java.Do(ctx, kindBytes, "compression.compress", data)
	if err != nil {
		t.Fatal(err)
	}
	curator, err := hex.DecodeString(e.Field(0))
	if err != nil {
		t.Fatalf("Curator's bytes %q: %v", e.Field(0), err)
	}
	ours, err := gzip.Compress("/", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(curator) < 10 || !bytes.Equal(ours[:10], curator[:10]) {
		t.Fatalf("gzip header %x, Curator's is %x", ours[:10], curator[:min(10, len(curator))])
	}
	if back, err := gzip.Decompress("/", curator); err != nil || string(back) != data {
		t.Fatalf("zkcurator read Curator's compressed bytes as %q, %v", back, err)
	}
	t.Logf("Curator: %d bytes, zkcurator: %d bytes for %d bytes of data", len(curator), len(ours), len(data))

	// Curator writes, zkcurator reads.
	javaNode, goNode := root+"/from-java", root+"/from-go"
	if _, err := java.Do(ctx, KindOK, "compression.create", javaNode, data); err != nil {
		t.Fatal(err)
	}
	raw, _, err := gc.GetData(ctx, javaNode)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw, curator) {
		t.Errorf("Curator's node holds %x, its provider gave %x", raw, curator)
	}
	if got, _, err := gc.Compressed().GetData(ctx, javaNode); err != nil || string(got) != data {
		t.Fatalf("zkcurator read Curator's compressed node as %q, %v", got, err)
	}

	// zkcurator writes, Curator reads.
	if _, err := gc.Create(ctx, goNode, []byte(data), framework.Compressed()); err != nil {
		t.Fatal(err)
	}
	curatorReads := func(path, want string) {
		t.Helper()
		e, err := java.Do(ctx, kindData, "compression.get", path)
		if err != nil {
			t.Fatal(err)
		}
		if e.Field(1) != want {
			t.Fatalf("Curator read %s as %q, want %q", path, e.Field(1), want)
		}
	}
	curatorReads(goNode, data)

	// And back: each sets the other's node; the other reads it.
	if _, err := gc.Compressed().SetData(ctx, javaNode, []byte("set-by-go"), -1); err != nil {
		t.Fatal(err)
	}
	curatorReads(javaNode, "set-by-go")
	if _, err := java.Do(ctx, KindOK, "compression.set", goNode, "set-by-java"); err != nil {
		t.Fatal(err)
	}
	if got, _, err := gc.Compressed().GetData(ctx, goNode); err != nil || string(got) != "set-by-java" {
		t.Fatalf("zkcurator read Curator's set as %q, %v", got, err)
	}
}
