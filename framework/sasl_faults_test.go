package framework_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

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
// proxy paused past the session timeout) and a server restart; the reply
// to its first token lost, it connects on the next connection.
func TestSASLReauthenticates(t *testing.T) {
	for _, m := range saslMechs {
		t.Run(m.name, func(t *testing.T) {
			srv, sasl, id := m.start(t)
			p := zktest.StartProxy(t, srv.Addr())
			log := newSASLLog(t)
			p.LoseNextReply(opSASL) // the first token's: not a refusal, the next connection authenticates
			// Two entries: go-zookeeper reconnects at once to the second, where it
			// would wait a second before trying its only one again.
			c, r := startRecorded(t, p.Addr()+","+p.Addr(), framework.WithLogger(log.logger()), sasl)
			if n := p.LostReplies(); n != 1 {
				t.Fatalf("%d replies lost; want the first token's", n)
			}
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
			noPassword(t, "the client's log", log.String())
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

// TestSASLStalledExchangeIsNoRefusal: a server that stalls in the exchange
// (the proxy paused at a reconnect's first token, past the exchange's
// bound of a third of the session timeout) ends that connection only:
// nothing is reported as a refusal, a later connection authenticates, and
// the creator-only node stays the client's. The exchange's code is the
// same for every mechanism.
func TestSASLStalledExchangeIsNoRefusal(t *testing.T) {
	srv := zktest.StartServer(t, zktest.WithSASLDigest(saslUsers), zktest.WithSASLRequired())
	p := zktest.StartProxy(t, srv.Addr())
	log := newSASLLog(t)
	// A session of 3 s bounds an exchange at 1 s.
	c := newUnstartedClient(t, p.Addr()+","+p.Addr(), framework.WithLogger(log.logger()),
		framework.WithSessionTimeout(3*time.Second), framework.WithSASL(framework.SASLDigest("alice", saslAlicePassword)))
	reported := reportedErrors(c)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	path := "/sasl-stalled"
	if _, err := c.Create(ctx, path, []byte("hers"), framework.WithACL(creatorOnly("alice")...)); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	armed := true
	endsWhilePaused := make(chan int64, 1)
	ends := p.ClientEnds()
	p.Trace(func(f zktest.Frame) {
		mu.Lock()
		defer mu.Unlock()
		if armed && !f.FromServer && f.Op == opSASL {
			armed = false
			go p.Pause()
			time.AfterFunc(1500*time.Millisecond, func() {
				endsWhilePaused <- p.ClientEnds()
				p.Resume()
			})
		}
	})
	authenticated := strings.Count(log.String(), "SASL authenticated")
	p.Sever()
	zktest.Eventually(t, testWait, "an authentication after the stall", func() bool {
		return strings.Count(log.String(), "SASL authenticated") > authenticated
	})
	select {
	case n := <-endsWhilePaused:
		if n == ends {
			t.Errorf("the client did not end the stalled connection within 1.5 s; its exchange is bounded at 1 s")
		}
	default:
		t.Fatal("no token was stalled")
	}
	if data, _, err := c.GetData(ctx, path); err != nil || string(data) != "hers" {
		t.Fatalf("GetData after a stalled exchange = %q, %v", data, err)
	}
	select {
	case err := <-reported:
		t.Errorf("reported %v; a stalled exchange is no refusal", err)
	default:
	}
}
