package barriers

import "errors"

var (
	// ErrInvalidArgument reports a bad argument to a constructor, named in
	// the error.
	ErrInvalidArgument = errors.New("barriers: invalid argument")

	// ErrMembershipLost reports that this member's node no longer counts:
	// it belongs to a session the client no longer has, or it is gone.
	ErrMembershipLost = errors.New("barriers: membership lost")

	// ErrNotEntered reports a Leave without a successful Enter.
	ErrNotEntered = errors.New("barriers: not entered")
)
