package cache

import "errors"

var (
	// ErrAlreadyStarted reports a second Start.
	ErrAlreadyStarted = errors.New("cache: already started")
	// ErrClosed reports a call after Close.
	ErrClosed = errors.New("cache: closed")
	// ErrInvalidArgument reports a bad argument to a constructor or option,
	// named in the error.
	ErrInvalidArgument = errors.New("cache: invalid argument")
)
