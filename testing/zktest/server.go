package zktest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const (
	// startTimeout bounds how long a start waits for the server to serve.
	startTimeout = 30 * time.Second
	// startAttempts bounds how often a start is tried when a port was taken.
	startAttempts = 3
	// readyPoll is how often a starting server is asked for its mode.
	readyPoll = 25 * time.Millisecond
	// failureLogLines is how much of the log a failed start or test shows.
	failureLogLines = 40
)

// errPortTaken reports that the JVM could not bind one of its ports.
var errPortTaken = errors.New("a port was taken by another process")

// Server is a ZooKeeper process on 127.0.0.1 whose data lives in a temporary
// directory. Its port and data survive Stop and Restart; Close removes them.
// A Server is safe for concurrent use.
type Server struct {
	runtime runtimeSetup
	dir     string // everything of this server; removed by Close
	log     *logSink
	cluster *Cluster // nil for a standalone server

	// inst is fixed once NewServer or NewCluster has returned.
	inst instance

	running atomic.Bool // a process is up, as far as Stop and Restart know

	slowestStart atomic.Int64 // nanoseconds of the longest start until ready so far

	mu     sync.Mutex // serializes Stop, Restart and Close
	proc   *process
	closed bool
}

// StartServer starts a standalone ZooKeeper for the test and closes it when
// the test ends, after printing the tail of its log if the test failed. A
// server that cannot start fails the test.
func StartServer(tb testing.TB, opts ...ServerOption) *Server {
	tb.Helper()
	s, err := NewServer(opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Logf("ZooKeeper %s, last %d log lines:\n%s", s.Addr(), failureLogLines, s.LogTail(failureLogLines))
		}
		if err := s.Close(); err != nil {
			tb.Errorf("close ZooKeeper %s: %v", s.Addr(), err)
		}
	})
	return s
}

// NewServer starts a standalone ZooKeeper on a free loopback port and returns
// once it serves requests. The caller must Close it.
func NewServer(opts ...ServerOption) (*Server, error) {
	cfg, err := newServerConfig(opts)
	if err != nil {
		return nil, err
	}
	rt, err := findRuntime()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "zktest-server-")
	if err != nil {
		return nil, fmt.Errorf("zktest: %w", err)
	}
	s, err := newServer(rt, cfg, dir, nil)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		p, err := pickPorts(1)
		if err == nil {
			s.inst.ports = ports{client: p[0]}
			err = s.start()
		}
		if err == nil {
			return s, nil
		}
		if !errors.Is(err, errPortTaken) || attempt == startAttempts {
			s.Close()
			return nil, err
		}
	}
}

// newServer prepares a server in dir without starting it.
func newServer(rt runtimeSetup, cfg serverConfig, dir string, c *Cluster) (*Server, error) {
	dataDir := filepath.Join(dir, "data")
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, fmt.Errorf("zktest: %w", err)
	}
	log, err := openLogSink(filepath.Join(dir, "zookeeper.log"), cfg.logOutput)
	if err != nil {
		return nil, fmt.Errorf("zktest: %w", err)
	}
	return &Server{
		runtime: rt,
		dir:     dir,
		log:     log,
		cluster: c,
		inst:    instance{cfg: cfg, dataDir: dataDir},
	}, nil
}

// ConnectString is the address clients connect to, "127.0.0.1:port".
func (s *Server) ConnectString() string { return s.Addr() }

// Addr is the server's client address, "127.0.0.1:port". It does not change
// across Stop and Restart.
func (s *Server) Addr() string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.inst.ports.client))
}

// CPUTime returns the CPU time, user and system, that the server's running
// JVM has used since it started (Linux only: it reads /proc).
func (s *Server) CPUTime() (time.Duration, error) {
	pid := s.PID()
	if pid == 0 {
		return 0, fmt.Errorf("zktest: server %s is not running", s.Addr())
	}
	return ProcessCPUTime(pid)
}

// PID returns the operating system's id of the server's running JVM, or 0
// when it is not running.
func (s *Server) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return 0
	}
	return s.proc.pid()
}

// FourLetter sends a four-letter command ("srvr", "mntr", "cons", "ruok", ...)
// and returns the server's whole reply. Without a deadline in ctx it gives up
// after five seconds.
func (s *Server) FourLetter(ctx context.Context, cmd string) (string, error) {
	return fourLetter(ctx, s.Addr(), cmd)
}

// LogTail returns the last n lines of the server's log (all its runs so far).
func (s *Server) LogTail(n int) string { return s.log.tail(n) }

// Stop kills the server's process at once, like a crash, keeping its data
// and port for Restart. Sessions stay valid until they time out. Stopping a
// stopped server does nothing.
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	s.stopLocked()
	return nil
}

// Restart stops the server if it runs, starts it again on the same port and
// data and returns once it serves requests. A cluster member is ready when it
// has joined a quorum, or as soon as it answers when too few members run to
// form one.
func (s *Server) Restart() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	s.stopLocked()
	var err error
	for attempt := 1; attempt <= startAttempts; attempt++ {
		if err = s.startLocked(); !errors.Is(err, errPortTaken) {
			break
		}
		// A port of ours is briefly held elsewhere; it cannot be changed.
		time.Sleep(200 * time.Millisecond)
	}
	return err
}

// Close kills the server and removes its data and log. It is idempotent.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.stopLocked()
	return errors.Join(s.log.close(), os.RemoveAll(s.dir))
}

func (s *Server) stopLocked() {
	if s.proc == nil {
		return
	}
	s.running.Store(false)
	s.proc.kill()
	s.proc = nil
}

// start launches the process and waits until it is ready; on failure the
// process is gone and the error shows the end of the log.
func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	return s.startLocked()
}

func (s *Server) startLocked() error {
	began := time.Now()
	if err := s.launchLocked(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	if err := s.awaitReady(ctx, s.proc); err != nil {
		s.stopLocked()
		return fmt.Errorf("zktest: start ZooKeeper %s: %w\nlast %d log lines:\n%s",
			s.Addr(), err, failureLogLines, s.LogTail(failureLogLines))
	}
	s.noteStart(time.Since(began))
	s.warmTLS(ctx)
	return nil
}

// launchLocked writes the configuration and starts the JVM without waiting.
func (s *Server) launchLocked() error {
	if err := s.prepareTLSLocked(); err != nil {
		return err
	}
	if err := s.prepareSASLLocked(); err != nil {
		return err
	}
	cfgPath := filepath.Join(s.dir, "zoo.cfg")
	if err := os.WriteFile(cfgPath, []byte(s.inst.zooCfg()), 0o644); err != nil {
		return fmt.Errorf("zktest: %w", err)
	}
	if s.inst.myID > 0 {
		myid := filepath.Join(s.inst.dataDir, "myid")
		if err := os.WriteFile(myid, []byte(strconv.Itoa(s.inst.myID)+"\n"), 0o644); err != nil {
			return fmt.Errorf("zktest: %w", err)
		}
	}
	s.log.resetBindError()
	proc, err := startProcess(s.runtime.java, s.inst.jvmArgs(s.inst.tlsClassPath(s.runtime.classPath), cfgPath), s.dir, s.log)
	if err != nil {
		return err
	}
	s.proc = proc
	s.running.Store(true)
	return nil
}

// awaitReady polls the server's mode until it is ready, the process exits,
// a port turns out to be taken, or ctx ends.
func (s *Server) awaitReady(ctx context.Context, proc *process) error {
	tick := time.NewTicker(readyPoll)
	defer tick.Stop()
	for {
		if s.log.sawBindError() {
			return errPortTaken
		}
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		mode, err := serverMode(pctx, s.Addr())
		cancel()
		if err == nil && s.ready(mode) {
			return nil
		}
		select {
		case <-proc.done:
			if s.log.sawBindError() {
				return errPortTaken
			}
			return fmt.Errorf("process exited during start: %v", proc.err)
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("not ready after %v", startTimeout)
			}
			return errors.New("start abandoned")
		case <-tick.C:
		}
	}
}

// ready reports whether a server answering with mode serves as it should.
func (s *Server) ready(mode string) bool {
	if s.cluster == nil {
		return mode == "standalone"
	}
	switch mode {
	case "leader", "follower", "observer":
		return true
	}
	// A member that cannot reach a quorum counts as up once it answers.
	return !s.cluster.quorumRunning()
}

// WatchCounts returns how many sessions watch each path on the server (its
// "wchp" command), leaving out the root of ZooKeeper's own nodes.
func (s *Server) WatchCounts(ctx context.Context) (map[string]int, error) {
	out, err := s.FourLetter(ctx, "wchp")
	if err != nil {
		return nil, err
	}
	counts := make(map[string]int)
	path := ""
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.TrimSpace(line) == "":
		case strings.HasPrefix(line, "/"):
			path = line
		case path == "":
			return nil, fmt.Errorf("zktest: wchp: session line %q before any path", line)
		case path != "/zookeeper":
			counts[path]++
		}
	}
	return counts, nil
}
