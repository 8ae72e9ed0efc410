package framework

import (
	"errors"
	"fmt"
	"strings"
)

var (
	// ErrInvalidPath reports a path ZooKeeper would reject. It is returned before any
	// request is sent, wrapped in an error that names the offending path.
	ErrInvalidPath = errors.New("framework: invalid path")

	// ErrInvalidArgument reports an argument NewClient (or an option) cannot use, such
	// as a connect string with a bad port or a session timeout ZooKeeper cannot carry.
	// It is wrapped in an error that names the value; nothing was sent to a server.
	ErrInvalidArgument = errors.New("framework: invalid argument")

	// ErrClosed reports an operation on a client that has been closed.
	ErrClosed = errors.New("framework: client is closed")

	// ErrNotStarted reports an operation on a client whose Start has not been called.
	ErrNotStarted = errors.New("framework: client is not started (call Start first)")

	// ErrNotConnected reports an operation that failed because the client had no
	// connection: the error names the servers it was waiting for and how long it
	// waited. When the wait ended at the connection timeout the error also matches
	// zk.ErrConnectionClosed, a connection loss the retry policy may retry; when ctx
	// ended it matches ctx's error.
	ErrNotConnected = errors.New("framework: not connected")

	// ErrSASLUnsupported reports a SASL scheme passed to WithAuth: SASL is
	// set with WithSASL (SASLDigest for DIGEST-MD5, SASLKerberos for
	// GSSAPI); digest (WithAuth) and x509 (WithTLS with a client
	// certificate) work too.
	ErrSASLUnsupported = errors.New("framework: SASL is not a WithAuth scheme; use WithSASL(SASLDigest(...)) or WithSASL(SASLKerberos(...)), digest (WithAuth) or x509 (WithTLS with a client certificate)")

	// ErrTTLNotEnabled reports a TTL create (PersistentWithTTL or
	// PersistentSequentialWithTTL) on a server that does not allow TTL nodes. The
	// server must run with the system property zookeeper.extendedTypesEnabled=true
	// (for example -Dzookeeper.extendedTypesEnabled=true in SERVER_JVMFLAGS).
	ErrTTLNotEnabled = errors.New("framework: TTL nodes are not enabled on the server (start it with -Dzookeeper.extendedTypesEnabled=true)")
)

// pkgPrefix starts every error message of the package, once.
const pkgPrefix = "framework: "

// wrapped is an error with context in front of err. Its message names the package
// once: err's own "framework: " prefix is dropped, so that wrapping a wrapped error
// (or a sentinel) never reads "framework: ... framework: ...".
type wrapped struct {
	context string
	err     error
}

func (w *wrapped) Error() string {
	return pkgPrefix + w.context + ": " + strings.TrimPrefix(w.err.Error(), pkgPrefix)
}

func (w *wrapped) Unwrap() error { return w.err }

// wrapf puts the formatted context in front of err (nil stays nil); errors.Is and
// errors.As see err.
func wrapf(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return &wrapped{context: fmt.Sprintf(format, args...), err: err}
}

// closedError is the error of an operation that Close interrupted after an attempt
// failed with last: it matches ErrClosed and last, and names the package once.
type closedError struct{ last error }

func (e closedError) Error() string {
	return ErrClosed.Error() + " (the last attempt failed: " + strings.TrimPrefix(e.last.Error(), pkgPrefix) + ")"
}

func (e closedError) Unwrap() []error { return []error{ErrClosed, e.last} }

// invalidArg returns an error matching ErrInvalidArgument (and any error args wrap
// with %w) that reads "framework: invalid argument: " and the formatted text.
func invalidArg(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidArgument}, args...)...)
}
