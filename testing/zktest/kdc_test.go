package zktest

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// TestKerberosKDCStartsAndStops: a KDC starts on its own realm, issues a
// ticket-granting ticket to a principal it created, and is gone, with its
// directory, after Close.
func TestKerberosKDCStartsAndStops(t *testing.T) {
	k, err := NewKDC()
	if err != nil {
		t.Fatal(err)
	}
	keytab, err := k.AddPrincipal("alice")
	if err != nil {
		k.Close()
		t.Fatal(err)
	}
	ccache, err := k.Kinit("alice", keytab, time.Hour)
	if err != nil {
		k.Close()
		t.Fatal(err)
	}
	if fi, err := os.Stat(ccache); err != nil || fi.Size() == 0 {
		t.Errorf("credentials cache %s: %v, %v; want a ticket", ccache, fi, err)
	}
	pid := k.proc.Process.Pid
	if err := k.Close(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("krb5kdc %d still runs after Close", pid)
	}
	if _, err := os.Stat(k.Dir()); !os.IsNotExist(err) {
		t.Errorf("the KDC's directory %s is still there: %v", k.Dir(), err)
	}
}

// TestKerberosServer: a server WithSASLKerberos starts (its JAAS login as
// the service principal succeeds against the KDC) and serves.
func TestKerberosServer(t *testing.T) {
	k := StartKDC(t)
	srv := StartServer(t, WithSASLKerberos(k))
	c := connect(t, srv.Addr(), 4*time.Second)
	defer c.Close()
	if _, _, err := c.Exists("/"); err != nil {
		t.Fatal(err)
	}
}
