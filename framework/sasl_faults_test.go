package framework_test

import (
	"context"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/framework/internal/gozk"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// saslMech is a SASL mechanism the fault tests run over: start starts a
// server that speaks it (with opts) and returns the client option that
// authenticates by it, and the identity the sasl ACL scheme gives.
type saslMech struct {
	name  string
	start func(t *testing.T, opts ...zktest.ServerOption) (srv *zktest.Server, sasl framework.Option, id string)
}

var saslMechs = []saslMech{
	{"DIGEST-MD5", func(t *testing.T, opts ...zktest.ServerOption) (*zktest.Server, framework.Option, string) {
		srv := zktest.StartServer(t, append([]zktest.ServerOption{zktest.WithSASLDigest(saslUsers)}, opts...)...)
		return srv, framework.WithSASL(framework.SASLDigest("alice", saslAlicePassword)), "alice"
	}},
	{"GSSAPI", func(t *testing.T, opts ...zktest.ServerOption) (*zktest.Server, framework.Option, string) {
		r := startKerberos(t, opts...)
		return r.srv, r.sasl(krbClient, framework.SASLKeytab(r.keytab)), krbClientID
	}},
}

// TestSASLReauthenticates: a SASL client, of each mechanism, authenticates
// again on every new connection, so that its creator-only node stays
// readable after a reconnect within the session, a session expiry (the
// proxy paused past the session timeout) and a server restart.
func TestSASLReauthenticates(t *testing.T) {
	for _, m := range saslMechs {
		t.Run(m.name, func(t *testing.T) {
			srv, sasl, id := m.start(t)
			p := zktest.StartProxy(t, srv.Addr())
			var log saslLog
			defer func() {
				if t.Failed() {
					t.Log(log.String())
				}
			}()
			// Two entries: go-zookeeper reconnects at once to the second, where it
			// would wait a second before trying its only one again.
			c, r := startRecorded(t, p.Addr()+","+p.Addr(), framework.WithLogger(log.logger()), sasl)
			path := "/sasl-reauth"
			if _, err := c.Create(testCtx(t), path, []byte("hers"), framework.WithACL(creatorOnly(id)...)); err != nil {
				t.Fatal(err)
			}
			readable := func(after string) {
				t.Helper()
				// Each read has a wait of its own: a restart on a loaded machine
				// can take most of one.
				if data, _, err := c.GetData(testCtx(t), path); err != nil || string(data) != "hers" {
					t.Fatalf("GetData after %s = %q, %v; want the node's data", after, data, err)
				}
			}

			p.Sever()
			r.await(t, C, S, R)
			readable("a reconnect within the session")

			sid := c.SessionID()
			p.Pause()
			r.await(t, C, S, R, S, L)
			p.Resume()
			r.await(t, C, S, R, S, L, R)
			if c.SessionID() == sid {
				t.Fatal("the session was not replaced")
			}
			readable("a session expiry")

			if err := srv.Restart(); err != nil {
				t.Fatal(err)
			}
			readable("a server restart")
			if n := strings.Count(log.String(), "SASL authenticated"); n < 4 {
				t.Errorf("%d SASL authentications in the log; want one per connection, at least 4", n)
			}
		})
	}
}

// TestSASLRequiredServer: on a server that requires SASL, a SASL client is
// served, an unauthenticated client is refused every request, and a wrong
// password is ErrSASLAuthFailed (matching zk.ErrAuthFailed) as on any
// server.
func TestSASLRequiredServer(t *testing.T) {
	srv := zktest.StartServer(t, zktest.WithSASLDigest(saslUsers), zktest.WithSASLRequired())
	ctx := testCtx(t)
	alice := newClient(t, srv.Addr(), framework.WithSASL(framework.SASLDigest("alice", saslAlicePassword)))
	if _, err := alice.Create(ctx, "/sasl-required", []byte("x")); err != nil {
		t.Fatalf("Create as alice: %v", err)
	}

	anon := newUnstartedClient(t, srv.Addr())
	if err := anon.Start(); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, testConnectionTimeout)
	defer cancel()
	if _, err := anon.Exists(short, "/sasl-required"); err == nil {
		t.Fatal("an unauthenticated client was served by a server that requires SASL")
	}

	_, _, err := awaitRefusal(t, srv.Addr(), framework.WithSASL(framework.SASLDigest("alice", saslWrongPassword)),
		"alice", zk.ErrAuthFailed, gozk.ErrSASLRequired)
	noPassword(t, "the error", err.Error())
}
