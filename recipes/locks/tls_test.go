package locks_test

import (
	"testing"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/locktest"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// TestDriverSuiteOverTLS runs the whole lock suite over mutual TLS, against a
// server that requires client certificates, with every node the suite
// creates readable and writable only by its creator's x509 identity.
func TestDriverSuiteOverTLS(t *testing.T) {
	ca := zktest.StartCA(t, "zk")
	srv := zktest.StartServer(t, zktest.WithTLS(ca, zktest.ClientAuthNeed))
	cert, err := ca.Client("locks")
	if err != nil {
		t.Fatal(err)
	}
	opts := []framework.Option{
		framework.WithTLS(ca.ClientConfig(cert)),
		framework.WithACLProvider(framework.CreatorAllACLProvider()),
	}
	locktest.RunDriverSuiteWith(t, srv.SecureAddr(), opts, func() locks.LockInternalsDriver {
		return locks.StandardLockInternalsDriver{}
	})
}
