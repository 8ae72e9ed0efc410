package zktest

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

func TestServerStartsAndServes(t *testing.T) {
	logs := &syncBuffer{}
	start := time.Now()
	s := StartServer(t, WithLogOutput(logs))
	took := time.Since(start)
	t.Logf("standalone ZooKeeper ready in %v", took)
	if took > 10*time.Second {
		t.Errorf("standalone start took %v, want well under 10s", took)
	}
	if s.ConnectString() != s.Addr() || !strings.HasPrefix(s.Addr(), "127.0.0.1:") {
		t.Errorf("ConnectString %q, Addr %q: want the same 127.0.0.1 address", s.ConnectString(), s.Addr())
	}

	c := connect(t, s.ConnectString(), 4*time.Second)
	if _, err := c.Create("/zktest", []byte("hello"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatalf("create: %v", err)
	}
	data, _, err := c.Get("/zktest")
	if err != nil || string(data) != "hello" {
		t.Fatalf("get /zktest = %q, %v; want \"hello\"", data, err)
	}

	ctx := context.Background()
	if reply, err := s.FourLetter(ctx, "ruok"); err != nil || reply != "imok" {
		t.Errorf("ruok = %q, %v; want imok", reply, err)
	}
	if reply, err := s.FourLetter(ctx, "srvr"); err != nil || !strings.Contains(reply, "Mode: standalone") {
		t.Errorf("srvr = %q, %v; want a standalone mode", reply, err)
	}
	if _, err := s.FourLetter(ctx, "SRVR"); err == nil || !strings.Contains(err.Error(), `"SRVR"`) {
		t.Errorf("FourLetter(SRVR) error = %v; want one naming the command", err)
	}

	if tail := s.LogTail(3); strings.Count(tail, "\n") != 2 {
		t.Errorf("LogTail(3) = %q; want 3 lines", tail)
	}
	if !strings.Contains(logs.String(), "QuorumPeerMain") {
		t.Errorf("WithLogOutput writer got no server log:\n%s", logs.String())
	}
}

func TestServerKeepsDataAndSessionsAcrossRestart(t *testing.T) {
	s := StartServer(t)
	addr := s.Addr()
	c := connect(t, addr, 20*time.Second)
	acl := zk.WorldACL(zk.PermAll)
	if _, err := c.Create("/kept", []byte("data"), 0, acl); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create("/mine", nil, zk.FlagEphemeral, acl); err != nil {
		t.Fatal(err)
	}
	session := c.SessionID()

	if err := s.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if err := s.Stop(); err != nil {
		t.Fatalf("second stop: %v", err)
	}
	if _, err := s.FourLetter(context.Background(), "ruok"); err == nil {
		t.Fatal("a stopped server answered ruok")
	}
	c.awaitState(t, zk.StateDisconnected, 10*time.Second)

	start := time.Now()
	if err := s.Restart(); err != nil {
		t.Fatalf("restart: %v", err)
	}
	t.Logf("standalone ZooKeeper restarted in %v", time.Since(start))
	if s.Addr() != addr {
		t.Fatalf("address changed across restart: %s, then %s", addr, s.Addr())
	}
	c.awaitState(t, zk.StateHasSession, 10*time.Second)
	if got := c.SessionID(); got != session {
		t.Fatalf("session %#x after restart, want the same %#x", got, session)
	}
	data, _, err := c.Get("/kept")
	if err != nil || string(data) != "data" {
		t.Fatalf("get /kept = %q, %v; want \"data\"", data, err)
	}
	_, stat, err := c.Get("/mine")
	if err != nil || stat.EphemeralOwner != session {
		t.Fatalf("ephemeral /mine: stat %+v, %v; want it owned by %#x", stat, err, session)
	}
}

func TestServerCloseLeavesNothing(t *testing.T) {
	s, err := NewServer()
	if err != nil {
		t.Fatal(err)
	}
	pid := s.proc.pid()
	dir := s.dir
	if got := processesMentioning(t, dir); len(got) != 1 {
		t.Fatalf("processes running ZooKeeper from %s: %v; want exactly one", dir, got)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("ZooKeeper pid %d after Close: kill(0) = %v; want ESRCH", pid, err)
	}
	if got := processesMentioning(t, dir); len(got) != 0 {
		t.Errorf("processes still running ZooKeeper from %s: %v", dir, got)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("directory %s after Close: %v; want it removed", dir, err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
	if err := s.Restart(); !errors.Is(err, ErrClosed) {
		t.Errorf("Restart after Close = %v; want ErrClosed", err)
	}
	if err := s.Stop(); !errors.Is(err, ErrClosed) {
		t.Errorf("Stop after Close = %v; want ErrClosed", err)
	}
}

func TestServerOptions(t *testing.T) {
	s := StartServer(t, WithTickTime(100*time.Millisecond), WithExtendedTypes(), WithContainerCheckInterval(100*time.Millisecond))
	conf, err := s.FourLetter(context.Background(), "conf")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"tickTime=100", "minSessionTimeout=200"} {
		if !strings.Contains(conf, want) {
			t.Errorf("conf lacks %q:\n%s", want, conf)
		}
	}

	c := connect(t, s.Addr(), 2*time.Second)
	acl := zk.WorldACL(zk.PermAll)
	if _, err := c.CreateTTL("/ttl", nil, zk.FlagTTL, acl, 200*time.Millisecond); err != nil {
		t.Fatalf("create TTL node: %v", err)
	}
	if _, err := c.CreateContainer("/box", nil, zk.FlagContainer, acl); err != nil {
		t.Fatalf("create container: %v", err)
	}
	if _, err := c.Create("/box/item", nil, 0, acl); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete("/box/item", -1); err != nil {
		t.Fatal(err)
	}
	await(t, 10*time.Second, "TTL node and empty container reaped", func() bool {
		return !exists(t, c, "/ttl") && !exists(t, c, "/box")
	})
}

func TestServerWithoutExtendedTypesRejectsTTL(t *testing.T) {
	s := StartServer(t)
	c := connect(t, s.Addr(), 2*time.Second)
	_, err := c.CreateTTL("/ttl", nil, zk.FlagTTL, zk.WorldACL(zk.PermAll), time.Second)
	// go-zookeeper has no sentinel for ZooKeeper's UNIMPLEMENTED (-6).
	if err == nil || !strings.Contains(err.Error(), "-6") {
		t.Fatalf("create TTL node without extended types: %v; want UNIMPLEMENTED (-6)", err)
	}
	if exists(t, c, "/ttl") {
		t.Fatal("TTL node created without extended types")
	}
}

func TestNewServerReportsMissingInstallation(t *testing.T) {
	for _, tc := range []struct{ env, value string }{
		{"ZOOKEEPER_CLASSPATH", "/nonexistent/zookeeper.jar"},
		{"JAVA_HOME", "/nonexistent/jdk"},
	} {
		t.Run(tc.env, func(t *testing.T) {
			t.Setenv(tc.env, tc.value)
			_, err := NewServer()
			if !errors.Is(err, ErrNotInstalled) {
				t.Fatalf("NewServer error = %v; want ErrNotInstalled", err)
			}
			for _, want := range []string{tc.value, "scripts/install-zookeeper.sh"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %q", err, want)
				}
			}
			if _, err := NewCluster(3); !errors.Is(err, ErrNotInstalled) {
				t.Errorf("NewCluster error = %v; want ErrNotInstalled", err)
			}
		})
	}
}

func TestNewServerRejectsBadOptions(t *testing.T) {
	for _, tc := range []struct {
		opt  ServerOption
		want string
	}{
		{WithTickTime(500 * time.Microsecond), "500µs"},
		{WithTickTime(1500 * time.Microsecond), "1.5ms"},
		{WithContainerCheckInterval(0), "0s"},
	} {
		if _, err := NewServer(tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewServer error = %v; want one naming %s", err, tc.want)
		}
	}
}
