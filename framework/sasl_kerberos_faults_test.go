package framework_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// TestSASLKerberosFailures: each failure to obtain a ticket ends the
// client's attempts within the connection timeout with an error matching
// ErrSASLAuthFailed and the sentinel of its cause, naming the principal (or
// the file), reported to ListenErrors, and holding no key; the client's log
// holds none either.
func TestSASLKerberosFailures(t *testing.T) {
	r := startKerberos(t)
	kdc := r.kdc
	mustKeytab := func(name string) string {
		t.Helper()
		kt, err := kdc.AddPrincipal(name)
		if err != nil {
			t.Fatal(err)
		}
		return kt
	}
	// A principal the KDC no longer knows, though its keytab remains.
	goneKeytab := mustKeytab("gone")
	if err := kdc.DeletePrincipal("gone"); err != nil {
		t.Fatal(err)
	}
	// A keytab of a key the KDC replaced.
	staleKeytab := mustKeytab("carol")
	if err := kdc.ChangeKey("carol"); err != nil {
		t.Fatal(err)
	}
	// A credentials cache whose ticket-granting ticket expired.
	erinKeytab := mustKeytab("erin")
	const life = time.Second
	expired, err := kdc.Kinit("erin", erinKeytab, life)
	if err != nil {
		t.Fatal(err)
	}
	expiresBy := time.Now().Add(life + time.Second) // kinit's ticket starts before it returns
	erinCache, err := kdc.Kinit("erin", erinKeytab, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	// A krb5.conf that allows no clock skew at all: every reply of the KDC
	// is stamped a fraction of a second before the client reads it.
	conf, err := os.ReadFile(kdc.Krb5Conf())
	if err != nil {
		t.Fatal(err)
	}
	noSkew := filepath.Join(t.TempDir(), "krb5.conf")
	if err := os.WriteFile(noSkew, []byte(strings.Replace(string(conf), "[libdefaults]\n", "[libdefaults]\n clockskew = 0s\n", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	// A krb5.conf caught mid-edit, on which gokrb5's parser panics.
	badConf := filepath.Join(t.TempDir(), "krb5.conf")
	if err := os.WriteFile(badConf, []byte("[libdefaults]\n default_realm = ZKTEST.LOCAL\n[realms]\n ZKTEST.LOCAL = {}\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	absent := filepath.Join(t.TempDir(), "absent")
	// A keytab whose last entry is cut short: gokrb5's error would print
	// the whole file, keys and all.
	whole, err := os.ReadFile(r.keytab)
	if err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(t.TempDir(), "truncated.keytab")
	if err := os.WriteFile(truncated, append(whole, 0, 0, 4, 0), 0o600); err != nil {
		t.Fatal(err)
	}
	// An empty credentials cache, as a kinit cut short leaves: gokrb5
	// panics reading it.
	emptyCache := filepath.Join(t.TempDir(), "empty-ccache")
	if err := os.WriteFile(emptyCache, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// Passing the time the expired ticket needs is the condition here.
	time.Sleep(time.Until(expiresBy))

	for _, c := range []struct {
		name      string
		principal string
		opts      []framework.SASLOption
		want      error
		names     string
	}{
		{"UnknownPrincipal", "gone", []framework.SASLOption{framework.SASLKeytab(goneKeytab)}, framework.ErrKerberosPrincipalUnknown, "gone@"},
		{"StaleKeytab", "carol", []framework.SASLOption{framework.SASLKeytab(staleKeytab)}, framework.ErrKerberosKeyRejected, "carol@"},
		{"MissingKeytab", krbClient, []framework.SASLOption{framework.SASLKeytab(absent)}, framework.ErrKerberosKeytab, absent},
		{"KeytabOfAnother", "dave", []framework.SASLOption{framework.SASLKeytab(r.keytab)}, framework.ErrKerberosKeytab, "dave@"},
		{"TruncatedKeytab", krbClient, []framework.SASLOption{framework.SASLKeytab(truncated)}, framework.ErrKerberosKeytab, truncated},
		{"NoCredentialsCache", "", []framework.SASLOption{framework.SASLCredentialsCache(absent)}, framework.ErrKerberosNoTicket, absent},
		{"EmptyCredentialsCache", "", []framework.SASLOption{framework.SASLCredentialsCache(emptyCache)}, framework.ErrKerberosNoTicket, emptyCache},
		{"CacheOfAnother", krbClient, []framework.SASLOption{framework.SASLCredentialsCache(erinCache)}, framework.ErrKerberosNoTicket, "erin@"},
		{"ExpiredTicket", "erin", []framework.SASLOption{framework.SASLCredentialsCache(expired)}, framework.ErrKerberosNoTicket, "expired"},
		{"ClockSkew", krbClient, []framework.SASLOption{framework.SASLKeytab(r.keytab), framework.SASLKrb5Config(noSkew)}, framework.ErrKerberosClockSkew, krbClient},
		{"MalformedKrb5Conf", krbClient, []framework.SASLOption{framework.SASLKeytab(r.keytab), framework.SASLKrb5Config(badConf)}, framework.ErrKerberosConfig, badConf},
		{"UnknownService", krbClient, []framework.SASLOption{framework.SASLKeytab(r.keytab), framework.SASLService("nosuch")}, framework.ErrKerberosServiceUnknown, "nosuch/localhost"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, log, err := awaitRefusal(t, r.srv.Addr(), r.sasl(c.principal, c.opts...), c.names, c.want)
			prefixedOnce(t, "BlockUntilConnected's error", err)
			noKeys(t, "the error", err.Error(), r.keytab, staleKeytab, erinKeytab)
			noKeys(t, "the client's log", log.String(), r.keytab, staleKeytab, erinKeytab)
		})
	}
}

// TestSASLKerberosKDCDown: while no KDC answers, the client does not give
// up (no ErrSASLAuthFailed: each connection tries again); once the KDC is
// back, it authenticates and is served.
func TestSASLKerberosKDCDown(t *testing.T) {
	r := startKerberos(t, zktest.WithSASLRequired())
	r.kdc.Stop()
	log := newSASLLog(t)
	cl := newUnstartedClient(t, r.srv.Addr(), framework.WithLogger(log.logger()),
		r.sasl(krbClient, framework.SASLKeytab(r.keytab)))
	if err := cl.Start(); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(context.Background(), testConnectionTimeout)
	defer cancel()
	if err := cl.BlockUntilConnected(short); err == nil || errors.Is(err, framework.ErrSASLAuthFailed) {
		t.Fatalf("BlockUntilConnected with no KDC = %v; want a timeout, not ErrSASLAuthFailed", err)
	}
	if !strings.Contains(log.String(), "the next connection tries again") {
		t.Errorf("no line of the failed attempt in the log")
	}
	if err := r.kdc.Restart(); err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	if err := cl.BlockUntilConnected(ctx); err != nil {
		t.Fatalf("BlockUntilConnected once the KDC is back = %v", err)
	}
	if _, err := cl.Exists(ctx, "/"); err != nil {
		t.Fatalf("Exists once the KDC is back = %v", err)
	}
}

// TestSASLKerberosServerRefusesTicket: a ticket the server cannot read
// (its keytab holds a key the KDC replaced) is the server's refusal,
// ErrSASLAuthFailed and zk.ErrAuthFailed, within the connection timeout.
func TestSASLKerberosServerRefusesTicket(t *testing.T) {
	r := startKerberos(t)
	if err := r.kdc.ChangeKey(strings.TrimSuffix(zktest.KDCServerPrincipal, "@"+zktest.KDCRealm)); err != nil {
		t.Fatal(err)
	}
	awaitRefusal(t, r.srv.Addr(), r.sasl(krbClient, framework.SASLKeytab(r.keytab)), krbClient, zk.ErrAuthFailed)
}
