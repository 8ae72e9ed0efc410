package watch

import "errors"

var (
	// ErrInvalidArgument reports a bad argument to a constructor, named in
	// the error.
	ErrInvalidArgument = errors.New("watch: invalid argument")

	// ErrAlreadyStarted reports a second Start.
	ErrAlreadyStarted = errors.New("watch: already started")

	// ErrClosed reports a Start after Close.
	ErrClosed = errors.New("watch: closed")
)
