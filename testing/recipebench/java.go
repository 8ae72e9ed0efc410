package main

import (
	"bufio"
	"context"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zkcurator/zkcurator/testing/internal/javahelp"
)

// The helper's source: one small Java file, compiled at start into a
// temporary directory (testing/internal/javahelp, as testing/interop's).
//
//go:embed java/*.java
var helperSources embed.FS

// helperJars is the helper's classpath besides its own class: Curator 5.4
// (libcurator-*-java), the ZooKeeper 3.8 client and what they need at run
// time; zookeeper.jar's manifest brings netty and the rest of its own deps.
var helperJars = []string{
	"curator-recipes.jar", "curator-framework.jar", "curator-client.jar",
	"zookeeper.jar", "zookeeper-jute.jar", "guava.jar", "slf4j-api.jar", "slf4j-simple.jar",
}

const installHint = "run scripts/install-zookeeper.sh --test (make bench does) to install a JDK and libcurator-recipes-java"

// curator is a running CuratorBench JVM: commands go to its stdin one at a
// time, each answered by one line; LEADER lines, which come on their own,
// go to leaders.
type curator struct {
	cmd     *exec.Cmd
	build   *javahelp.Build
	stdin   io.WriteCloser
	replies chan string
	leaders chan leaderEvent
	stderr  *lockedWriter // the helper's stderr, for errors
	done    chan struct{} // closed when stdout has ended
	quit    chan struct{} // closed by close: nobody reads replies any more

	mu sync.Mutex // one command at a time
}

// startCurator compiles the helper and starts it with the session timeout
// its clients ask for; it waits up to a minute for the helper to be ready.
// Call close when done.
func startCurator(ctx context.Context, sessionTimeout time.Duration) (_ *curator, err error) {
	src, err := fs.Sub(helperSources, "java")
	if err != nil {
		return nil, fmt.Errorf("recipebench: %w", err)
	}
	build, err := javahelp.Compile(ctx, javahelp.Spec{Name: "recipebench", Hint: installHint, Jars: javahelp.Jars(helperJars...), Sources: src})
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			build.Remove()
		}
	}()
	c := &curator{build: build, replies: make(chan string, 1), leaders: make(chan leaderEvent, 64), stderr: &lockedWriter{}, done: make(chan struct{}), quit: make(chan struct{})}
	// The JVM's default JIT (no TieredStopAtLevel): the helper should reach
	// the speed a long-running Curator service has. It exits when its stdin
	// closes, so it never outlives this process for long.
	c.cmd = exec.CommandContext(ctx, build.Java, "-Xmx512m", "-Dzookeeper.sasl.client=false",
		"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", build.Classpath, "CuratorBench",
		"--session-timeout-ms", strconv.FormatInt(sessionTimeout.Milliseconds(), 10))
	c.cmd.Stderr = c.stderr
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("recipebench: %w", err)
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("recipebench: %w", err)
	}
	if err := c.cmd.Start(); err != nil {
		return nil, fmt.Errorf("recipebench: start the Curator helper: %w", err)
	}
	go c.read(stdout)
	readyCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if _, err := c.await(readyCtx, "READY"); err != nil {
		c.close() // removes the build too
		return nil, fmt.Errorf("recipebench: the Curator helper did not start: %w", err)
	}
	return c, nil
}

// read routes the helper's lines: LEADER events to leaders, the rest to
// replies.
func (c *curator) read(stdout io.Reader) {
	defer close(c.done)
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		if f := strings.Fields(line); len(f) == 3 && f[0] == "LEADER" {
			nanos, err := strconv.ParseInt(f[2], 10, 64)
			if err == nil {
				select {
				case c.leaders <- leaderEvent{name: f[1], at: time.Unix(0, nanos)}:
				case <-c.quit:
				}
				continue
			}
		}
		select {
		case c.replies <- line:
		case <-c.quit:
		}
	}
}

// do sends one command and returns its reply's fields after the leading
// word want; an ERROR reply is an error.
func (c *curator) do(ctx context.Context, want string, words ...string) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	line := strings.Join(words, " ")
	if _, err := io.WriteString(c.stdin, line+"\n"); err != nil {
		return nil, fmt.Errorf("recipebench: Curator helper: send %q: %w", line, err)
	}
	f, err := c.await(ctx, want)
	if err != nil {
		return nil, fmt.Errorf("recipebench: Curator helper: %s: %w", line, err)
	}
	return f, nil
}

// doArmed sends one command, awaits its ARMED reply, runs between, and
// returns the fields of the RESULT reply that follows. When between fails
// it still awaits that reply, so that the next command meets no stale one.
func (c *curator) doArmed(ctx context.Context, between func() error, words ...string) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	line := strings.Join(words, " ")
	if _, err := io.WriteString(c.stdin, line+"\n"); err != nil {
		return nil, fmt.Errorf("recipebench: Curator helper: send %q: %w", line, err)
	}
	if _, err := c.await(ctx, "ARMED"); err != nil {
		return nil, fmt.Errorf("recipebench: Curator helper: %s: %w", line, err)
	}
	betweenErr := between()
	f, err := c.await(ctx, "RESULT")
	if betweenErr != nil {
		return nil, betweenErr
	}
	if err != nil {
		return nil, fmt.Errorf("recipebench: Curator helper: %s: %w", line, err)
	}
	return f, nil
}

// await returns the fields of the next reply after its leading word want.
func (c *curator) await(ctx context.Context, want string) ([]string, error) {
	select {
	case line := <-c.replies:
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != want {
			return nil, fmt.Errorf("answered %q, not %s", line, want)
		}
		return f[1:], nil
	case <-c.done:
		return nil, fmt.Errorf("the helper exited; stderr:\n%s", c.stderr.tail(4000))
	case <-ctx.Done():
		return nil, fmt.Errorf("no %s reply: %w", want, ctx.Err())
	}
}

// close ends the helper (it exits when its stdin closes) and removes its
// build; it waits at most 10 s before it kills the process.
func (c *curator) close() {
	close(c.quit)
	c.stdin.Close()
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
	}
	_ = c.cmd.Wait()
	c.build.Remove()
}

// lockedWriter keeps at least the last keepTail bytes written to it, safe for the
// exec package's copying goroutine. The helper's stderr carries the embedded
// server's log: kept whole, growing it cost the bench process a fifth of its
// CPU in a cache run.
type lockedWriter struct {
	mu  sync.Mutex
	buf []byte
}

// keepTail is how much of the helper's stderr an error can show.
const keepTail = 64 << 10

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	if len(l.buf) > 2*keepTail { // drop all but the tail, once per keepTail bytes at most
		l.buf = l.buf[:copy(l.buf, l.buf[len(l.buf)-keepTail:])]
	}
	return len(p), nil
}

// tail returns the last n bytes written (at most keepTail).
func (l *lockedWriter) tail(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.buf[max(0, len(l.buf)-n):])
}
