package security_test

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// The snippet of docs/security.md that starts a TLS server for a test runs
// as written: each of its statements is one of this test's, which the
// compiler checks, and the client it builds reaches the secure port.
func TestSecurityDocTLSSnippetRuns(t *testing.T) {
	ca := zktest.StartCA(t, "test") // CA in t.TempDir()
	srv := zktest.StartServer(t, zktest.WithTLS(ca, zktest.ClientAuthNeed))
	alice, _ := ca.Client("alice") // CN=alice, also ca.ExpiredClient
	client := zkclient.New(t, srv.SecureAddr(), framework.WithTLS(ca.ClientConfig(alice)))

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := client.Create(ctx, "/snippet", nil); err != nil {
		t.Fatalf("a create through the snippet's client: %v", err)
	}

	doc, err := os.ReadFile("../../docs/security.md")
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile("doc_snippet_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "## Testing your own code against a secured server")
	block := regexp.MustCompile("(?s)```go\n(.*?)```").FindStringSubmatch(section)
	if !ok || block == nil {
		t.Fatal("docs/security.md: no Go snippet under \"Testing your own code against a secured server\"")
	}
	for _, line := range strings.Split(strings.TrimSpace(block[1]), "\n") {
		stmt := strings.TrimSpace(strings.SplitN(line, "//", 2)[0])
		if stmt != "" && !strings.Contains(string(self), stmt) {
			t.Errorf("docs/security.md's snippet says %q, which this test does not run", stmt)
		}
	}
}
