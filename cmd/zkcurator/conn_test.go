package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestConnectFlagsRefusedAtOnce: connect strings with a bad port or an
// empty host and session timeouts ZooKeeper's protocol cannot carry end
// zkcurator with status 64 before it connects, on one line naming the value.
func TestConnectFlagsRefusedAtOnce(t *testing.T) {
	srv := sharedServer(t)
	for _, tc := range []struct {
		name  string
		flags []string
		want  string
	}{
		{"port not a number", []string{"--connect", "127.0.0.1:zk"}, `port "zk" is not a number`},
		{"port too large", []string{"--connect", srv.ConnectString() + ",127.0.0.1:65536"}, "port 65536 is outside 1..65535"},
		{"port zero", []string{"--connect", "127.0.0.1:0"}, "port 0 is outside"},
		{"empty host", []string{"--connect", ":2181"}, `server ":2181" has an empty host`},
		{"empty server", []string{"--connect", srv.ConnectString() + ","}, "an empty server"},
		{"session timeout 2^31 ms", []string{"--connect", srv.ConnectString(), "--session-timeout", "2147483648ms"}, `invalid value "2147483648ms" for flag -session-timeout`},
		{"session timeout of years", []string{"--connect", srv.ConnectString(), "--session-timeout", "20000h"}, `invalid value "20000h"`},
		{"negative session timeout", []string{"--connect", srv.ConnectString(), "--session-timeout", "-5s"}, `invalid value "-5s"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "ran")
			began := time.Now()
			code, stderr := runTool(t, append(append([]string{"lock"}, tc.flags...), "/cli/refused", "--", "touch", file)...)
			if code != exitUsage || len(toolLines(stderr)) != 1 || !strings.Contains(stderr, tc.want) {
				t.Errorf("status %d, stderr %q; want %d and one line with %q", code, stderr, exitUsage, tc.want)
			}
			if _, err := os.Stat(file); err == nil {
				t.Error("the command ran")
			}
			if took := time.Since(began); took > 3*time.Second {
				t.Errorf("refusing the flags took %v", took)
			}
		})
	}
}

// TestConnectFailureSaysWhy: when no session comes, zkcurator exits with
// status 69 within --connect-timeout (plus the time to start a process),
// saying why the last attempt failed: refused, no answer to the handshake,
// or a port that speaks TLS; with --verbose the log shows the attempts.
func TestConnectFailureSaysWhy(t *testing.T) {
	silent := listen(t, func(net.Conn) {}) // accepts, never answers
	tlsPort := listen(t, func(c net.Conn) {
		s := tls.Server(c, selfSignedConfig(t))
		_ = s.Handshake()
		s.Close()
	})
	for _, tc := range []struct {
		name, addr, want string
	}{
		{"refused", closedAddr(t), "connection refused"},
		{"no answer", silent, "did not answer ZooKeeper's handshake"},
		{"tls", tlsPort, "TLS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const timeout = 1500 * time.Millisecond
			began := time.Now()
			p := start(t, "participants", "--verbose", "--connect", tc.addr, "--connect-timeout", timeout.String(), "/cli/why")
			code := p.wait(t)
			took := time.Since(began)
			stderr := p.stderr.String()
			ours := toolLines(stderr)
			last := ours[len(ours)-1]
			if code != exitUnavailable || !strings.Contains(last, "cannot reach ZooKeeper at "+tc.addr) || !strings.Contains(last, tc.want) {
				t.Errorf("status %d, last line %q; want %d and a line saying %q", code, last, exitUnavailable, tc.want)
			}
			if !strings.Contains(stderr, "zk: ") {
				t.Errorf("--verbose logged no connection attempt:\n%s", stderr)
			}
			if took > timeout+time.Second {
				t.Errorf("exited %v after starting, want within --connect-timeout %v (plus 1s to start)", took, timeout)
			}
			t.Logf("exited after %v: %s", took, last)
		})
	}
}

// listen serves each connection to a loopback listener with serve, on a
// goroutine of its own, and returns the listener's address. The test's end
// closes the listener and the connections and waits for serve.
func listen(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				serve(c)
			}()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return l.Addr().String()
}

// selfSignedConfig is a TLS server configuration with a throwaway
// certificate for 127.0.0.1.
func selfSignedConfig(t *testing.T) *tls.Config {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Error(err)
		return nil
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Error(err)
		return nil
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
}
