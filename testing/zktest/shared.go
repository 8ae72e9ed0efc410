package zktest

import (
	"fmt"
	"os"
	"sync"
	"testing"
)

// Shared is one server for the tests of a package that neither stop nor
// restart theirs: it starts on first use and stops after the last test,
// when the package's TestMain runs the tests through Main. Such tests keep
// to paths of their own. The zero value is ready to use.
type Shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// Server returns the shared server, starting it on first use; a server that
// cannot start fails the test. A test that fails logs the server's last 40
// log lines.
func (s *Shared) Server(tb testing.TB) *Server {
	tb.Helper()
	s.once.Do(func() { s.srv, s.err = NewServer() })
	if s.err != nil {
		tb.Fatalf("cannot start ZooKeeper for the tests: %v", s.err)
	}
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Logf("shared ZooKeeper %s, last 40 log lines:\n%s", s.srv.Addr(), s.srv.LogTail(40))
		}
	})
	return s.srv
}

// Main wraps m so that running it stops the shared server after the last
// test; a server that does not stop cleanly fails the run. Pass it to
// goleak.VerifyTestMain, or call its Run.
func (s *Shared) Main(m *testing.M) interface{ Run() int } { return sharedMain{s, m} }

type sharedMain struct {
	s *Shared
	m *testing.M
}

func (r sharedMain) Run() int {
	code := r.m.Run()
	if r.s.srv != nil {
		if err := r.s.srv.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "closing the shared ZooKeeper: %v\n", err)
			return 1
		}
	}
	return code
}
