package zktest

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
)

// bindFailure is what the JVM prints when a port it must listen on is taken.
var bindFailure = []byte("Address already in use")

// logSink receives a server's output: it appends it to the log file, copies
// it to an optional writer and notices failures to bind a port.
type logSink struct {
	path string

	mu        sync.Mutex
	file      *os.File
	extra     io.Writer
	bindError bool
	carry     []byte // end of the previous write, so a split message is still seen
}

func openLogSink(path string, extra io.Writer) (*logSink, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &logSink{path: path, file: f, extra: extra}, nil
}

// Write never fails: a log that cannot be kept must not stop the server.
func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file != nil {
		_, _ = l.file.Write(p)
	}
	if l.extra != nil {
		_, _ = l.extra.Write(p)
	}
	scan := append(l.carry, p...)
	if bytes.Contains(scan, bindFailure) {
		l.bindError = true
	}
	keep := min(len(scan), len(bindFailure)-1)
	l.carry = append(l.carry[:0], scan[len(scan)-keep:]...)
	return len(p), nil
}

// resetBindError forgets bind failures seen so far, before a new start.
func (l *logSink) resetBindError() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.bindError = false
	l.carry = l.carry[:0]
}

// sawBindError reports whether the server failed to bind a port since the
// last resetBindError.
func (l *logSink) sawBindError() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.bindError
}

// close stops writing to the file; later output is discarded.
func (l *logSink) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file == nil {
		return nil
	}
	err := l.file.Close()
	l.file = nil
	return err
}

// tail returns the last n lines of the log file, or "" when there are none.
func (l *logSink) tail(n int) string {
	if n <= 0 {
		return ""
	}
	data, err := os.ReadFile(l.path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
