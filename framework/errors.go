package framework

import "errors"

var (
	// ErrInvalidPath reports a path ZooKeeper would reject. It is returned before any
	// request is sent, wrapped in an error that names the offending path.
	ErrInvalidPath = errors.New("framework: invalid path")

	// ErrClosed reports an operation on a client that has been closed.
	ErrClosed = errors.New("framework: client is closed")

	// ErrNotStarted reports an operation on a client whose Start has not been called.
	ErrNotStarted = errors.New("framework: client is not started (call Start first)")
)
