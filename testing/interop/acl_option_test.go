package interop

import (
	"context"
	"strings"
	"testing"
)

// WithACL's entries must read scheme:id; a Kazoo helper refuses WithACL. Both
// fail before any process starts.
func TestHelperACLOptionRefusesBadEntries(t *testing.T) {
	for _, e := range []string{"sasl", ":orders", "sasl:", "sasl:a,b", "sasl:a b"} {
		if _, err := newConfig("curator", "127.0.0.1:2181", []Option{WithACL(e)}); err == nil || !strings.Contains(err.Error(), e) {
			t.Errorf("WithACL(%q) = %v; want an error naming it", e, err)
		}
	}
	if _, err := StartKazoo(context.Background(), "127.0.0.1:2181", WithACL("sasl:orders")); err == nil || !strings.Contains(err.Error(), "WithACL") {
		t.Errorf("StartKazoo with WithACL = %v; want an error naming WithACL", err)
	}
	if _, err := WriteJAASDigestClient(t.TempDir(), "", "pw"); err == nil {
		t.Error("WriteJAASDigestClient with an empty user succeeded")
	}
}
