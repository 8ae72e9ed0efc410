package leader

import (
	"context"
	"errors"
	"fmt"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/internal/lifecycle"
)

// errClientClosed is the cause of a term's context ended because its
// client was closed under it; it matches ErrLeadershipLost and
// framework.ErrClosed.
var errClientClosed = fmt.Errorf("%w: %w", ErrLeadershipLost, framework.ErrClosed)

// clientClosed reports whether c has been closed.
func clientClosed(c *framework.Client) bool {
	select {
	case <-c.Done():
		return true
	default:
		return false
	}
}

// start moves a latch's or selector's life (what names it) to Started, or
// says why it cannot: framework.ErrClosed when the client is closed (life
// then stays latent), ErrAlreadyStarted, or ErrClosed.
func start(life *lifecycle.Lifecycle, c *framework.Client, what string) error {
	if life.State() == lifecycle.Latent && clientClosed(c) {
		return fmt.Errorf("leader: start %s: %w", what, framework.ErrClosed)
	}
	return life.Start(what)
}

// check returns nil while a latch's or selector's life (what names it) is
// started and its client open; else, in this order, ErrClosed,
// framework.ErrClosed or ErrNotStarted.
func check(life *lifecycle.Lifecycle, c *framework.Client, what string) error {
	err := life.Check(what)
	if !errors.Is(err, ErrClosed) && clientClosed(c) {
		return fmt.Errorf("leader: %s: %w", what, framework.ErrClosed)
	}
	return err
}

// connectionNote says, for an error of a wait that ended, that the client
// could not talk to the ensemble meanwhile: "" when it is connected.
func connectionNote(c *framework.Client) string {
	switch s := c.State(); {
	case s == 0:
		return " (the client has not connected yet)"
	case !s.IsConnected():
		return " (the client's connection is " + s.String() + ")"
	}
	return ""
}

// untilClientCloses returns a context that ends with ctx or, with the cause
// errClientClosed, when c is closed, after calling onClose (if not nil).
// stop releases it and returns once its goroutine has ended.
func untilClientCloses(ctx context.Context, c *framework.Client, onClose func()) (_ context.Context, stop func()) {
	return until(ctx, c.Done(), errClientClosed, onClose)
}

// until returns a context that ends with ctx or, with cause, when done is
// closed, after calling onClose (if not nil). stop releases it and returns
// once its goroutine has ended.
func until(ctx context.Context, done <-chan struct{}, cause error, onClose func()) (_ context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		select {
		case <-done:
			if onClose != nil {
				onClose()
			}
			cancel(cause)
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		cancel(nil)
		<-ended
	}
}
