package framework_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/framework"
)

// silentKDC is a KDC that reads requests on UDP and TCP and never answers:
// a KDC that stalls.
type silentKDC struct {
	udp   net.PacketConn
	tcp   net.Listener
	heard chan struct{} // closed at the first request
	once  sync.Once
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns []net.Conn
}

func startSilentKDC(t *testing.T) *silentKDC {
	t.Helper()
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	udp, err := net.ListenPacket("udp", tcp.Addr().String())
	if err != nil {
		tcp.Close()
		t.Fatal(err)
	}
	k := &silentKDC{udp: udp, tcp: tcp, heard: make(chan struct{})}
	k.wg.Add(2)
	go func() {
		defer k.wg.Done()
		buf := make([]byte, 4096)
		for {
			if _, _, err := udp.ReadFrom(buf); err != nil {
				return
			}
			k.once.Do(func() { close(k.heard) })
		}
	}()
	go func() {
		defer k.wg.Done()
		for {
			c, err := tcp.Accept()
			if err != nil {
				return
			}
			k.mu.Lock()
			k.conns = append(k.conns, c)
			k.mu.Unlock()
			k.once.Do(func() { close(k.heard) })
		}
	}()
	t.Cleanup(func() {
		udp.Close()
		tcp.Close()
		k.mu.Lock()
		for _, c := range k.conns {
			c.Close()
		}
		k.mu.Unlock()
		k.wg.Wait()
	})
	return k
}

// files writes a krb5.conf whose realm SILENT.TEST has k as its KDC,
// and a keytab of principal there.
func (k *silentKDC) files(t *testing.T, principal string) (conf, kt string) {
	t.Helper()
	dir := t.TempDir()
	conf = filepath.Join(dir, "krb5.conf")
	text := fmt.Sprintf("[libdefaults]\n default_realm = SILENT.TEST\n dns_lookup_kdc = false\n"+
		"[realms]\n SILENT.TEST = {\n  kdc = %s\n }\n[domain_realm]\n localhost = SILENT.TEST\n", k.tcp.Addr())
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	tab := keytab.New()
	if err := tab.AddEntry(principal, "SILENT.TEST", "silent-kdc-secret", time.Now(), 1, etypeID.AES256_CTS_HMAC_SHA1_96); err != nil {
		t.Fatal(err)
	}
	b, err := tab.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	kt = filepath.Join(dir, "client.keytab")
	if err := os.WriteFile(kt, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return conf, kt
}

// TestSASLKerberosStalledKDC: a KDC that never answers holds up neither
// BlockUntilConnected beyond its ctx nor Close, and once Close has returned
// no goroutine of the client is left waiting for the KDC.
func TestSASLKerberosStalledKDC(t *testing.T) {
	kdc := startSilentKDC(t)
	conf, kt := kdc.files(t, "zkclient")
	addr := sharedServer(t).Addr()
	before := goleak.IgnoreCurrent()
	c, err := framework.NewClient(addr, testPolicy,
		framework.WithSessionTimeout(testSessionTimeout), framework.WithConnectionTimeout(testConnectionTimeout),
		framework.WithSASL(framework.SASLKerberos("zkclient", framework.SASLKeytab(kt), framework.SASLKrb5Config(conf))))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-kdc.heard:
	case <-time.After(testWait):
		c.Close()
		t.Fatal("the client never asked the KDC for a ticket")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := c.BlockUntilConnected(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("BlockUntilConnected with a stalled KDC = %v; want ctx's end", err)
	}
	began := time.Now()
	c.Close()
	if d := time.Since(began); d > testConnectionTimeout {
		t.Errorf("Close took %v with a stalled KDC", d)
	}
	goleak.VerifyNone(t, before)
}
