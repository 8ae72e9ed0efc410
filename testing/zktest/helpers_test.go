package zktest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// quietLogger keeps go-zookeeper's connection chatter out of test output.
type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}

// client is a go-zookeeper connection whose session events arrive, in order,
// on events.
type client struct {
	*zk.Conn
	events chan zk.Event
}

// connect opens a session through addr (comma-separated addresses) and
// waits until it has one.
func connect(t *testing.T, addr string, sessionTimeout time.Duration) *client {
	t.Helper()
	events := make(chan zk.Event, 256)
	conn, _, err := zk.Connect(strings.Split(addr, ","), sessionTimeout,
		zk.WithLogger(quietLogger{}),
		zk.WithEventCallback(func(ev zk.Event) {
			if ev.Type != zk.EventSession {
				return
			}
			select {
			case events <- ev: // the callback must not block
			default:
			}
		}))
	if err != nil {
		t.Fatalf("connect to %s: %v", addr, err)
	}
	t.Cleanup(conn.Close)
	c := &client{Conn: conn, events: events}
	c.awaitState(t, zk.StateHasSession, 10*time.Second)
	return c
}

// awaitState reads session events until one reports want.
func (c *client) awaitState(t *testing.T, want zk.State, within time.Duration) {
	t.Helper()
	timeout := time.After(within)
	var seen []zk.State
	for {
		select {
		case ev := <-c.events:
			if ev.State == want {
				return
			}
			seen = append(seen, ev.State)
		case <-timeout:
			t.Fatalf("no %v within %v; saw %v", want, within, seen)
		}
	}
}

// await polls cond until it holds, failing the test after within.
func await(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not true within %v", what, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// exists reports whether path exists, failing the test on any other error.
func exists(t *testing.T, c *client, path string) bool {
	t.Helper()
	ok, _, err := c.Exists(path)
	if err != nil {
		t.Fatalf("exists %s: %v", path, err)
	}
	return ok
}

// createRetrying creates path, retrying while the client reconnects; an
// earlier attempt whose reply was lost counts as success.
func createRetrying(t *testing.T, c *client, path string, data []byte, within time.Duration) {
	t.Helper()
	var err error
	await(t, within, "create "+path, func() bool {
		_, err = c.Create(path, data, 0, zk.WorldACL(zk.PermAll))
		return err == nil || errors.Is(err, zk.ErrNodeExists)
	})
}

// processesMentioning returns the pids of processes whose command line
// contains s.
func processesMentioning(t *testing.T, s string) []string {
	t.Helper()
	cmdlines, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var pids []string
	for _, path := range cmdlines {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // the process ended meanwhile
		}
		if bytes.Contains(data, []byte(s)) {
			pids = append(pids, filepath.Base(filepath.Dir(path)))
		}
	}
	return pids
}

// syncBuffer is a bytes.Buffer safe for the writer goroutine of a child
// process and the test reading it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
