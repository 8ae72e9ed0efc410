package cache

import "errors"

var (
	// ErrAlreadyStarted reports a second Start.
	ErrAlreadyStarted = errors.New("cache: already started")
	// ErrClosed reports a Start after Close, or one that Close ended.
	ErrClosed = errors.New("cache: closed")
	// ErrInvalidArgument reports a bad argument to a constructor or option,
	// named in the error.
	ErrInvalidArgument = errors.New("cache: invalid argument")
)
