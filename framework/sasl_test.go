package framework_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// The passwords of the SASL tests: a test fails if one shows up in a log
// line or an error.
const (
	saslAlicePassword = "alice-pw-7c1e9a"
	saslBobPassword   = "bob-pw-52d0f4"
	saslWrongPassword = "wrong-pw-a83b27"
)

var saslUsers = map[string]string{"alice": saslAlicePassword, "bob": saslBobPassword}

// creatorOnly is the sasl ACL of user: all permissions to it alone.
func creatorOnly(user string) []zk.ACL {
	return []zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: user}}
}

// saslLog collects a client's log, every level, to be searched for a
// password.
type saslLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *saslLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *saslLog) Sync() error { return nil }

func (l *saslLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *saslLog) logger() *zap.Logger {
	enc := zapcore.NewJSONEncoder(zap.NewDevelopmentEncoderConfig())
	return zap.New(zapcore.NewCore(enc, zapcore.AddSync(l), zapcore.DebugLevel))
}

// newSASLLog returns a saslLog that t prints should it fail.
func newSASLLog(t *testing.T) *saslLog {
	l := &saslLog{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(l.String())
		}
	})
	return l
}

// reportedErrors returns a channel of the first errors c reports to
// ListenErrors.
func reportedErrors(c *framework.Client) <-chan error {
	reported := make(chan error, 4)
	c.ListenErrors(func(err error) {
		select {
		case reported <- err:
		default:
		}
	})
	return reported
}

// noPassword fails t if any SASL test password is in s.
func noPassword(t *testing.T, what, s string) {
	t.Helper()
	for _, pw := range []string{saslAlicePassword, saslBobPassword, saslWrongPassword} {
		if strings.Contains(s, pw) {
			t.Errorf("%s holds a password: %s", what, s)
		}
	}
}

// TestSASLDigestCreatorOnlyNode: a client authenticated as alice creates a
// node only sasl:alice may use and reads it; bob and an unauthenticated
// client are refused on it; the auth scheme names sasl:alice; no password
// is in a log line.
func TestSASLDigestCreatorOnlyNode(t *testing.T) {
	srv := zktest.StartServer(t, zktest.WithSASLDigest(saslUsers))
	var log saslLog
	alice := newClient(t, srv.Addr(), framework.WithLogger(log.logger()),
		framework.WithSASL(framework.SASLDigest("alice", saslAlicePassword)))
	ctx := testCtx(t)
	path := "/sasl-alice"
	if _, err := alice.Create(ctx, path, []byte("hers"), framework.WithACL(creatorOnly("alice")...)); err != nil {
		t.Fatalf("Create as alice: %v", err)
	}
	if data, _, err := alice.GetData(ctx, path); err != nil || string(data) != "hers" {
		t.Fatalf("GetData as alice = %q, %v", data, err)
	}
	// The auth scheme (CreatorAllACLProvider's) names the SASL user.
	if _, err := alice.Create(ctx, path+"-auth", nil, framework.WithACL(zk.AuthACL(zk.PermAll)...)); err != nil {
		t.Fatalf("Create with the auth scheme as alice: %v", err)
	}
	if acl, _, err := alice.GetACL(ctx, path+"-auth"); err != nil || len(acl) != 1 || acl[0].Scheme != "sasl" || acl[0].ID != "alice" {
		t.Errorf("ACL of a node created with the auth scheme = %v, %v; want sasl:alice", acl, err)
	}
	bob := newClient(t, srv.Addr(), framework.WithSASL(framework.SASLDigest("bob", saslBobPassword)))
	if _, _, err := bob.GetData(ctx, path); !errors.Is(err, zk.ErrNoAuth) {
		t.Errorf("GetData as bob = %v; want zk.ErrNoAuth", err)
	}
	anon := newClient(t, srv.Addr())
	if _, _, err := anon.GetData(ctx, path); !errors.Is(err, zk.ErrNoAuth) {
		t.Errorf("GetData unauthenticated = %v; want zk.ErrNoAuth", err)
	}
	if !strings.Contains(log.String(), "SASL authenticated") {
		t.Errorf("no line of the SASL authentication in the debug log")
	}
	noPassword(t, "the client's log", log.String())
}

// awaitRefusal starts a client that authenticates by sasl on addr and
// checks that BlockUntilConnected fails within the connection timeout with
// an error matching ErrSASLAuthFailed and each of want, naming names, and
// that ListenErrors and the log are told too; it returns the client, its
// log (every level) and the error.
func awaitRefusal(t *testing.T, addr string, sasl framework.Option, names string, want ...error) (*framework.Client, *saslLog, error) {
	t.Helper()
	log := newSASLLog(t)
	cl := newUnstartedClient(t, addr, framework.WithLogger(log.logger()), sasl)
	reported := reportedErrors(cl)
	if err := cl.Start(); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), testConnectionTimeout)
	defer cancel()
	err := cl.BlockUntilConnected(ctx)
	for _, w := range append([]error{framework.ErrSASLAuthFailed}, want...) {
		if !errors.Is(err, w) {
			t.Fatalf("BlockUntilConnected = %v after %v; want ErrSASLAuthFailed and %v", err, time.Since(began), want)
		}
	}
	if !strings.Contains(err.Error(), names) {
		t.Errorf("error %q does not name %q", err, names)
	}
	select {
	case r := <-reported:
		if !errors.Is(r, framework.ErrSASLAuthFailed) || r.Error() != err.Error() {
			t.Errorf("reported %v; want %v", r, err)
		}
	case <-time.After(testWait):
		t.Errorf("no error reported to ListenErrors")
	}
	if !strings.Contains(log.String(), "SASL authentication failed") {
		t.Errorf("the refusal is not in the client's log")
	}
	return cl, log, err
}

// TestSASLWrongPasswordFails: a wrong password, or an unknown user, is
// refused by the server; BlockUntilConnected returns an error matching
// ErrSASLAuthFailed within the connection timeout, the same error is
// reported to ListenErrors and returned by operations, the credentials are
// not sent again, and neither the error nor the log holds the password.
func TestSASLWrongPasswordFails(t *testing.T) {
	srv := zktest.StartServer(t, zktest.WithSASLDigest(saslUsers))
	for _, c := range []struct{ name, user string }{{"WrongPassword", "alice"}, {"UnknownUser", "mallory"}} {
		t.Run(c.name, func(t *testing.T) {
			p := zktest.StartProxy(t, srv.Addr())
			// Two entries: go-zookeeper would dial the second at once.
			cl, log, err := awaitRefusal(t, p.Addr()+","+p.Addr(), framework.WithSASL(framework.SASLDigest(c.user, saslWrongPassword)),
				c.user, zk.ErrAuthFailed)
			// The refusal is final: no connection sends the credentials again.
			tokens := p.RequestCount(opSASL)
			time.Sleep(time.Second) // the window in which a retry would come
			if n := p.RequestCount(opSASL); n != tokens {
				t.Errorf("%d SASL tokens sent after the refusal; want none", n-tokens)
			}
			_, opErr := cl.Exists(testCtx(t), "/")
			if !errors.Is(opErr, framework.ErrSASLAuthFailed) {
				t.Errorf("Exists after the refusal = %v; want ErrSASLAuthFailed", opErr)
			}
			noPassword(t, "BlockUntilConnected's error", err.Error())
			noPassword(t, "Exists's error", opErr.Error())
			noPassword(t, "the client's log", log.String())
		})
	}
}
