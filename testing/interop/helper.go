package interop

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var (
	// ErrCommandFailed is returned when the helper answered a command with an ERROR
	// event; the error's text carries Curator's (or Kazoo's) exception and message.
	ErrCommandFailed = errors.New("interop: helper command failed")
	// ErrNotAcquired is returned when an acquire in the helper timed out.
	ErrNotAcquired = errors.New("interop: helper did not acquire")
	// ErrExited is returned when the helper process is gone before the awaited event.
	ErrExited = errors.New("interop: helper exited")
)

// DefaultWait bounds a wait for an event when the caller's context has no deadline.
const DefaultWait = 30 * time.Second

// exitWait bounds how long a helper may take to exit after its stdin closed or
// it was killed.
const exitWait = 10 * time.Second

var helperSeq atomic.Int64

// Option configures a helper.
type Option func(*config)

type config struct {
	name           string
	sessionTimeout time.Duration
	jvmProps       []string // -Dkey=value, from WithSystemProperty
	acl            []string // scheme:id, from WithACL
}

// WithSessionTimeout sets the session timeout the helper's client asks for
// (Curator's sessionTimeoutMs, which also serves as its connectionTimeoutMs;
// Kazoo's timeout); the default is 2s.
func WithSessionTimeout(d time.Duration) Option { return func(c *config) { c.sessionTimeout = d } }

// WithName names the helper in errors and logs; the default is "curator-<n>"
// (for Kazoo, "kazoo-<n>").
func WithName(name string) Option { return func(c *config) { c.name = name } }

// Helper is a running helper process on a ZooKeeper ensemble, driven by line
// commands: a JVM that uses Apache Curator (see java/CuratorHelper.java, and
// Start) or Python with Kazoo (see kazoo/helper.py, and StartKazoo). It is
// safe for concurrent use; every wait on it is bounded by a context.
type Helper struct {
	name   string
	cmd    *exec.Cmd
	stderr *tailWriter

	writeMu sync.Mutex
	stdin   io.WriteCloser
	nextID  int64

	mu       sync.Mutex
	events   []Event
	commands map[string]string // id -> command line, for error messages
	changed  chan struct{}     // closed and replaced whenever events or exited change
	exited   bool
	exitErr  error

	done      chan struct{} // closed once the process has been reaped
	closeOnce sync.Once
	closeErr  error

	sessionTimeout time.Duration
}

// Start compiles the helper if needed, starts it against connect and returns once
// its Curator client is connected. Call Close when done.
func Start(ctx context.Context, connect string, opts ...Option) (*Helper, error) {
	cfg, err := newConfig("curator", connect, opts)
	if err != nil {
		return nil, err
	}
	java, classpath, err := compileHelper()
	if err != nil {
		return nil, err
	}
	args := append([]string{
		"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:-UsePerfData", "-Xshare:auto", "-Xmx256m",
		"-Dzookeeper.sasl.client=false",
		"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
		"-Dorg.slf4j.simpleLogger.showDateTime=true",
	}, cfg.jvmProps...)
	args = append(args,
		"-cp", classpath, "CuratorHelper",
		"--connect", connect,
		"--session-timeout-ms", strconv.FormatInt(cfg.sessionTimeout.Milliseconds(), 10),
		"--connection-timeout-ms", strconv.FormatInt(cfg.sessionTimeout.Milliseconds(), 10),
	)
	if len(cfg.acl) > 0 {
		args = append(args, "--acl", strings.Join(cfg.acl, ","))
	}
	return launch(ctx, cfg.name, exec.Command(java, args...))
}

// newConfig applies opts over the defaults (a name "<prefix>-<n>", a 2s
// session timeout) and checks them and connect.
func newConfig(prefix, connect string, opts []Option) (config, error) {
	cfg := config{name: fmt.Sprintf("%s-%d", prefix, helperSeq.Add(1)), sessionTimeout: 2 * time.Second}
	for _, o := range opts {
		o(&cfg)
	}
	if connect == "" || strings.ContainsAny(connect, " \t\n") {
		return cfg, fmt.Errorf("interop: bad connect string %q", connect)
	}
	if cfg.sessionTimeout < time.Millisecond {
		return cfg, fmt.Errorf("interop: session timeout %v is below 1ms", cfg.sessionTimeout)
	}
	for _, e := range cfg.acl {
		if scheme, id, ok := strings.Cut(e, ":"); !ok || scheme == "" || id == "" || strings.ContainsAny(e, ", \t\n") {
			return cfg, fmt.Errorf("interop: ACL entry %q is not scheme:id (without commas or whitespace)", e)
		}
	}
	return cfg, nil
}

// launch starts a helper process speaking the line protocol and returns once
// it printed READY.
func launch(ctx context.Context, name string, cmd *exec.Cmd) (*Helper, error) {
	cmd.SysProcAttr = dieWithParent()
	h := &Helper{
		name:     name,
		cmd:      cmd,
		stderr:   &tailWriter{max: 200},
		commands: map[string]string{},
		changed:  make(chan struct{}),
		done:     make(chan struct{}),
	}
	cmd.Stderr = h.stderr
	var err error
	if h.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("interop: %s: %w", h.name, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("interop: %s: %w", h.name, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("interop: start %s: %w", h.name, err)
	}
	go h.read(stdout)
	ready, err := h.await(ctx, "-", KindReady)
	if err != nil {
		h.Close()
		return nil, err
	}
	ms, err := strconv.Atoi(ready.Field(1))
	if err != nil {
		h.Close()
		return nil, fmt.Errorf("interop: %s: bad READY event %v", h.name, ready)
	}
	h.sessionTimeout = time.Duration(ms) * time.Millisecond
	return h, nil
}

// StartHelper starts a helper for a test (see Start), fails the test if it cannot,
// and closes it when the test ends; a failed test's log shows the helper's last
// events and stderr.
func StartHelper(tb testing.TB, connect string, opts ...Option) *Helper {
	tb.Helper()
	return startForTest(tb, func(ctx context.Context) (*Helper, error) { return Start(ctx, connect, opts...) })
}

// startForTest starts a helper with start, fails the test if it cannot, and
// closes it when the test ends, logging its last events and stderr if the
// test failed.
func startForTest(tb testing.TB, start func(context.Context) (*Helper, error)) *Helper {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), DefaultWait)
	defer cancel()
	h, err := start(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Logf("%s: last events:\n%s\n%s: stderr tail:\n%s", h.name, h.eventTail(40), h.name, h.stderr.String())
		}
		if err := h.Close(); err != nil {
			tb.Errorf("%s: %v", h.name, err)
		}
	})
	return h
}

// Name returns the helper's name as used in errors.
func (h *Helper) Name() string { return h.name }

// SessionTimeout returns the session timeout the server negotiated with Curator.
func (h *Helper) SessionTimeout() time.Duration { return h.sessionTimeout }

// Send sends a command and returns at once; its events can be awaited on the Call.
// Arguments must be non-empty and free of whitespace.
func (h *Helper) Send(verb string, args ...string) (*Call, error) {
	for _, a := range append([]string{verb}, args...) {
		if a == "" || strings.ContainsAny(a, " \t\r\n") {
			return nil, fmt.Errorf("interop: %s: bad command word %q in %s %q", h.name, a, verb, args)
		}
	}
	h.writeMu.Lock()
	defer h.writeMu.Unlock()
	h.nextID++
	id := strconv.FormatInt(h.nextID, 10)
	line := strings.Join(append([]string{id, verb}, args...), " ")
	h.mu.Lock()
	h.commands[id] = line
	h.mu.Unlock()
	if _, err := io.WriteString(h.stdin, line+"\n"); err != nil {
		return nil, fmt.Errorf("interop: %s: send %q: %w (%w)", h.name, line, err, ErrExited)
	}
	return &Call{h: h, ID: id}, nil
}

// Do sends a command and waits for its event of kind want.
func (h *Helper) Do(ctx context.Context, want, verb string, args ...string) (Event, error) {
	c, err := h.Send(verb, args...)
	if err != nil {
		return Event{}, err
	}
	return c.Await(ctx, want)
}

// Quit closes the Curator client (deleting its ephemeral nodes) and waits for the
// process to exit.
func (h *Helper) Quit(ctx context.Context) error {
	if _, err := h.Do(ctx, KindBye, "quit"); err != nil {
		return err
	}
	return h.waitExit(ctx)
}

// Kill kills the helper with SIGKILL, as a crash would: its session stays until
// the server expires it. Kill returns once the process is gone.
func (h *Helper) Kill() error {
	if err := h.cmd.Process.Kill(); err != nil && !h.hasExited() {
		return fmt.Errorf("interop: kill %s: %w", h.name, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), exitWait)
	defer cancel()
	return h.waitExit(ctx)
}

// Close ends the helper: it closes stdin (the helper halts without closing its
// client) and kills the process if it has not exited within a few seconds.
// Close is idempotent.
func (h *Helper) Close() error {
	h.closeOnce.Do(func() {
		h.writeMu.Lock()
		h.stdin.Close()
		h.writeMu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), exitWait)
		defer cancel()
		if h.waitExit(ctx) == nil {
			return
		}
		h.closeErr = h.Kill()
	})
	return h.closeErr
}

// Events returns a copy of every event received so far.
func (h *Helper) Events() []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.events)
}

func (h *Helper) waitExit(ctx context.Context) error {
	select {
	case <-h.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("interop: %s did not exit: %w", h.name, ctx.Err())
	}
}

func (h *Helper) hasExited() bool {
	select {
	case <-h.done:
		return true
	default:
		return false
	}
}

// read collects the helper's events until its stdout closes, then reaps it.
func (h *Helper) read(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	for sc.Scan() {
		e, err := parseEvent(sc.Text())
		if err != nil {
			h.stderr.Write([]byte("stdout: " + sc.Text() + "\n"))
			continue
		}
		h.mu.Lock()
		h.events = append(h.events, e)
		close(h.changed)
		h.changed = make(chan struct{})
		h.mu.Unlock()
	}
	err := h.cmd.Wait()
	h.mu.Lock()
	h.exited, h.exitErr = true, err
	close(h.changed)
	h.changed = make(chan struct{})
	h.mu.Unlock()
	close(h.done)
}

// await returns the first event for id whose kind is one of kinds. An ERROR event
// for id, the helper's exit or the end of ctx (DefaultWait when it has no
// deadline) end the wait with an error.
func (h *Helper) await(ctx context.Context, id string, kinds ...string) (Event, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultWait)
		defer cancel()
	}
	for next := 0; ; {
		h.mu.Lock()
		for ; next < len(h.events); next++ {
			e := h.events[next]
			if e.ID != id {
				continue
			}
			if e.Kind == KindError {
				cmd := h.commands[id]
				h.mu.Unlock()
				return Event{}, fmt.Errorf("%w: %s: %q: %s", ErrCommandFailed, h.name, cmd, strings.Join(e.Fields, " "))
			}
			if slices.Contains(kinds, e.Kind) {
				h.mu.Unlock()
				return e, nil
			}
		}
		if h.exited {
			cmd, exitErr := h.commands[id], h.exitErr
			h.mu.Unlock()
			return Event{}, fmt.Errorf("%w: %s (%v) before %v for %q; stderr:\n%s",
				ErrExited, h.name, exitErr, kinds, cmd, h.stderr.String())
		}
		changed := h.changed
		h.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			h.mu.Lock()
			cmd := h.commands[id]
			h.mu.Unlock()
			return Event{}, fmt.Errorf("interop: %s: waiting for %v for %q: %w", h.name, kinds, cmd, ctx.Err())
		}
	}
}

func (h *Helper) eventTail(n int) string {
	events := h.Events()
	if len(events) > n {
		events = events[len(events)-n:]
	}
	var b strings.Builder
	for _, e := range events {
		b.WriteString(e.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// Call is one command sent to a helper; the events it causes carry its ID.
type Call struct {
	h  *Helper
	ID string
}

// Await waits for the call's first event of one of kinds. An ERROR event for the
// call is ErrCommandFailed; the helper's exit is ErrExited.
func (c *Call) Await(ctx context.Context, kinds ...string) (Event, error) {
	return c.h.await(ctx, c.ID, kinds...)
}

// Acquired waits for the call's ACQUIRED event; a TIMEOUT event is ErrNotAcquired.
func (c *Call) Acquired(ctx context.Context) (Event, error) {
	e, err := c.Await(ctx, KindAcquired, KindTimeout)
	if err != nil {
		return Event{}, err
	}
	if e.Kind == KindTimeout {
		return Event{}, fmt.Errorf("%w: %s: %v", ErrNotAcquired, c.h.name, e)
	}
	return e, nil
}

// Events returns the call's events of kind received so far.
func (c *Call) Events(kind string) []Event {
	var out []Event
	for _, e := range c.h.Events() {
		if e.ID == c.ID && e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// tailWriter keeps the last max lines written to it.
type tailWriter struct {
	mu      sync.Mutex
	max     int
	lines   []string
	partial string
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	parts := strings.Split(w.partial+string(p), "\n")
	w.partial = parts[len(parts)-1]
	w.lines = append(w.lines, parts[:len(parts)-1]...)
	if len(w.lines) > w.max {
		w.lines = slices.Clone(w.lines[len(w.lines)-w.max:])
	}
	return len(p), nil
}

func (w *tailWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(append(slices.Clone(w.lines), w.partial), "\n")
}
