package zktest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// KDCRealm is the realm of every KDC of StartKDC; each has its own
// database, so realms of tests that run at once do not meet.
const KDCRealm = "ZKTEST.LOCAL"

// KDCServerPrincipal is the principal of a ZooKeeper started
// WithSASLKerberos: the Java client's, and SASLKerberos's, for a server
// address on 127.0.0.1 or localhost.
const KDCServerPrincipal = "zookeeper/localhost@" + KDCRealm

// kdcStartTimeout bounds a KDC's start: its database is created and the
// server answers on its port.
const kdcStartTimeout = 30 * time.Second

// The MIT Kerberos programs a KDC needs (Debian's krb5-kdc,
// krb5-admin-server and krb5-user).
var kdcPrograms = []string{"kdb5_util", "krb5kdc", "kadmin.local", "kinit"}

// KDC is a real MIT Kerberos KDC on 127.0.0.1 with a realm of its own in a
// temporary directory: its krb5.conf is what clients and servers of the
// test are given.
type KDC struct {
	dir  string
	port int
	env  []string // KRB5_CONFIG and KRB5_KDC_PROFILE of this realm

	mu   sync.Mutex
	proc *exec.Cmd
	done chan struct{} // closed when proc was reaped
}

// StartKDC starts a KDC for the test and stops it, removing its directory,
// when the test ends. A missing MIT Kerberos program fails the test.
func StartKDC(tb testing.TB) *KDC {
	tb.Helper()
	k, err := NewKDC()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Logf("KDC %s log:\n%s", k.Addr(), k.logTail())
		}
		if err := k.Close(); err != nil {
			tb.Errorf("close KDC: %v", err)
		}
	})
	return k
}

// NewKDC creates a realm KDCRealm with the principal KDCServerPrincipal in
// a new temporary directory and starts its KDC on a free loopback port. The
// caller must Close it.
func NewKDC() (*KDC, error) {
	for _, p := range kdcPrograms {
		if _, err := lookKrb5(p); err != nil {
			return nil, fmt.Errorf("zktest: KDC: %s not found (install Debian's krb5-kdc, krb5-admin-server and krb5-user: scripts/install-zookeeper.sh --test): %w", p, err)
		}
	}
	dir, err := os.MkdirTemp("", "zktest-kdc-")
	if err != nil {
		return nil, fmt.Errorf("zktest: %w", err)
	}
	k := &KDC{dir: dir, env: append(os.Environ(),
		"KRB5_CONFIG="+filepath.Join(dir, "krb5.conf"), "KRB5_KDC_PROFILE="+filepath.Join(dir, "kdc.conf"))}
	if err := k.start(); err != nil {
		k.Close()
		return nil, err
	}
	return k, nil
}

// lookKrb5 finds an MIT Kerberos program on PATH or in /usr/sbin, where
// Debian puts the KDC's.
func lookKrb5(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return exec.LookPath(filepath.Join("/usr/sbin", name))
}

func (k *KDC) start() error {
	var last error
	for range 3 { // another process may take the port before the KDC binds it
		p, err := freePorts(1)
		if err != nil {
			return err
		}
		k.port = p[0]
		if err := k.writeConfig(); err != nil {
			return err
		}
		if _, err := os.Stat(filepath.Join(k.dir, "principal")); err != nil {
			if err := k.run("kdb5_util", "-r", KDCRealm, "create", "-s", "-P", "zktest-master-"+strconv.Itoa(os.Getpid())); err != nil {
				return err
			}
			if _, err := k.AddPrincipal(strings.TrimSuffix(KDCServerPrincipal, "@"+KDCRealm)); err != nil {
				return err
			}
		}
		if last = k.launch(); last == nil {
			return nil
		}
	}
	return last
}

// writeConfig writes kdc.conf and krb5.conf for the KDC's port.
func (k *KDC) writeConfig() error {
	const enctypes = "aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96"
	listen := fmt.Sprintf("127.0.0.1:%d", k.port)
	kdcConf := fmt.Sprintf(`[kdcdefaults]
 kdc_listen = %[2]s
 kdc_tcp_listen = %[2]s
[realms]
 %[1]s = {
  database_name = %[3]s/principal
  key_stash_file = %[3]s/stash
  acl_file = %[3]s/kadm5.acl
  kdc_listen = %[2]s
  kdc_tcp_listen = %[2]s
  max_life = 1h
  max_renewable_life = 1h
  supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
 }
[logging]
 kdc = FILE:%[3]s/kdc.log
 admin_server = FILE:%[3]s/kadmin.log
 default = FILE:%[3]s/kdc.log
`, KDCRealm, listen, k.dir)
	krb5Conf := fmt.Sprintf(`[libdefaults]
 default_realm = %[1]s
 dns_lookup_kdc = false
 dns_lookup_realm = false
 rdns = false
 dns_canonicalize_hostname = false
 default_tkt_enctypes = %[3]s
 default_tgs_enctypes = %[3]s
 permitted_enctypes = %[3]s
 default_ccache_name = FILE:%[4]s/ccache-default
[realms]
 %[1]s = {
  kdc = %[2]s
 }
[domain_realm]
 localhost = %[1]s
`, KDCRealm, listen, enctypes, k.dir)
	for name, text := range map[string]string{"kdc.conf": kdcConf, "krb5.conf": krb5Conf, "kadm5.acl": ""} {
		if err := os.WriteFile(filepath.Join(k.dir, name), []byte(text), 0o600); err != nil {
			return fmt.Errorf("zktest: %w", err)
		}
	}
	return nil
}

// launch starts krb5kdc in the foreground, in its own process group, and
// waits until it accepts connections on its TCP port.
func (k *KDC) launch() error {
	path, _ := lookKrb5("krb5kdc")
	cmd := exec.Command(path, "-n", "-r", KDCRealm)
	cmd.Env = k.env
	cmd.Dir = k.dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = childProcAttr()
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("zktest: start krb5kdc: %w", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	k.mu.Lock()
	k.proc, k.done = cmd, done
	k.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), kdcStartTimeout)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if c, err := net.DialTimeout("tcp", k.Addr(), time.Second); err == nil {
			c.Close()
			return nil
		}
		select {
		case <-done:
			k.stop()
			return fmt.Errorf("zktest: krb5kdc exited at start: %s\n%s", out.String(), k.logTail())
		case <-ctx.Done():
			k.stop()
			return fmt.Errorf("zktest: krb5kdc did not listen on %s within %v\n%s", k.Addr(), kdcStartTimeout, k.logTail())
		case <-tick.C:
		}
	}
}

// run runs an MIT Kerberos program of this realm, failing with its output.
func (k *KDC) run(name string, args ...string) error {
	path, err := lookKrb5(name)
	if err != nil {
		return fmt.Errorf("zktest: KDC: %s not found: %w", name, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), kdcStartTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = k.env
	cmd.Dir = k.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("zktest: KDC: %s %s: %w\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// kadmin runs one kadmin.local query on the realm's database.
func (k *KDC) kadmin(query string) error {
	return k.run("kadmin.local", "-r", KDCRealm, "-q", query)
}

// Addr is the KDC's address, "127.0.0.1:port", on UDP and TCP.
func (k *KDC) Addr() string { return fmt.Sprintf("127.0.0.1:%d", k.port) }

// Realm is the KDC's realm, KDCRealm.
func (k *KDC) Realm() string { return KDCRealm }

// Krb5Conf is the path of the krb5.conf that names the realm (its default
// realm) and this KDC.
func (k *KDC) Krb5Conf() string { return filepath.Join(k.dir, "krb5.conf") }

// Dir is the KDC's temporary directory, removed by Close; tests may keep
// their credentials caches there.
func (k *KDC) Dir() string { return k.dir }

// AddPrincipal creates name (without the realm) with a random key that
// pre-authentication requires, and exports the key to a new keytab file,
// whose path it returns.
func (k *KDC) AddPrincipal(name string) (keytab string, err error) {
	if err := k.kadmin("addprinc -randkey +requires_preauth " + name); err != nil {
		return "", err
	}
	return k.ExportKeytab(name)
}

// ExportKeytab writes name's current key to a new keytab file without
// changing it, and returns the file's path.
func (k *KDC) ExportKeytab(name string) (string, error) {
	f, err := os.CreateTemp(k.dir, "keytab-*")
	if err != nil {
		return "", fmt.Errorf("zktest: %w", err)
	}
	f.Close()
	os.Remove(f.Name()) // kadmin.local writes a keytab of its own format only to a new or keytab file
	if err := k.kadmin("ktadd -k " + f.Name() + " -norandkey " + name); err != nil {
		return "", err
	}
	return f.Name(), nil
}

// ChangeKey gives name a new random key, so that keytabs exported before
// hold a key the KDC no longer accepts.
func (k *KDC) ChangeKey(name string) error { return k.kadmin("cpw -randkey " + name) }

// DeletePrincipal removes name from the realm.
func (k *KDC) DeletePrincipal(name string) error { return k.kadmin("delprinc -force " + name) }

// Kinit fills a new credentials cache file with a ticket-granting ticket of
// name, from its keytab, valid for lifetime (at least a second); it returns
// the cache's path.
func (k *KDC) Kinit(name, keytab string, lifetime time.Duration) (string, error) {
	f, err := os.CreateTemp(k.dir, "ccache-*")
	if err != nil {
		return "", fmt.Errorf("zktest: %w", err)
	}
	f.Close()
	secs := max(int(lifetime/time.Second), 1)
	if err := k.run("kinit", "-k", "-t", keytab, "-l", strconv.Itoa(secs)+"s", "-c", "FILE:"+f.Name(), name); err != nil {
		return "", err
	}
	return f.Name(), nil
}

// ServerKeytab is the keytab of KDCServerPrincipal.
func (k *KDC) serverKeytab() (string, error) {
	return k.ExportKeytab(strings.TrimSuffix(KDCServerPrincipal, "@"+KDCRealm))
}

// stop kills the KDC, if it runs, and waits until it is reaped.
func (k *KDC) stop() {
	k.mu.Lock()
	cmd, done := k.proc, k.done
	k.proc = nil
	k.mu.Unlock()
	if cmd == nil {
		return
	}
	killProcessGroup(cmd.Process)
	<-done
}

// Stop stops the KDC, keeping its realm, so that no KDC answers on Addr
// until Restart.
func (k *KDC) Stop() { k.stop() }

// Restart starts a stopped KDC again on the same address, with the same
// realm and principals.
func (k *KDC) Restart() error {
	k.stop()
	return k.launch()
}

// Close stops the KDC and removes its directory.
func (k *KDC) Close() error {
	k.stop()
	if err := os.RemoveAll(k.dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("zktest: %w", err)
	}
	return nil
}

// logTail is the end of the KDC's log, for a failure's message.
func (k *KDC) logTail() string {
	b, err := os.ReadFile(filepath.Join(k.dir, "kdc.log"))
	if err != nil {
		return ""
	}
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}
