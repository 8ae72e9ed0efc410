// Package lifecycle is the one Start/Close state of every recipe: latent,
// then started, then closed, each step taken once by compare-and-set, as
// Curator's recipes keep an AtomicReference<State>. The errors are the
// recipe package's own sentinels, so that a caller matches them with
// errors.Is against the package it uses.
package lifecycle

import (
	"fmt"
	"sync/atomic"
)

// State is where a recipe is in its life.
type State int32

const (
	// Latent: built, not started.
	Latent State = iota
	// Started: Start succeeded and Close has not run.
	Started
	// Closed: Close ran; nothing starts again.
	Closed
)

// String names the state as Curator does.
func (s State) String() string {
	switch s {
	case Latent:
		return "LATENT"
	case Started:
		return "STARTED"
	case Closed:
		return "CLOSED"
	}
	return fmt.Sprintf("State(%d)", int32(s))
}

// Errors are a recipe package's sentinels for the three refusals.
type Errors struct {
	AlreadyStarted error // a second Start
	NotStarted     error // a call that needs Start first
	Closed         error // any call after Close
}

// Lifecycle is one recipe's state. The zero value is Latent; Start and
// Close each succeed once.
type Lifecycle struct {
	state atomic.Int32
	errs  *Errors
}

// New returns a latent lifecycle whose refusals wrap errs' sentinels.
func New(errs *Errors) Lifecycle {
	return Lifecycle{errs: errs}
}

// State reports the current state.
func (l *Lifecycle) State() State { return State(l.state.Load()) }

// Start moves Latent to Started, or says why it cannot: the package's
// AlreadyStarted, or Closed. what names the recipe in the error.
func (l *Lifecycle) Start(what string) error {
	if l.state.CompareAndSwap(int32(Latent), int32(Started)) {
		return nil
	}
	if l.State() == Closed {
		return l.refuse(l.errs.Closed, what)
	}
	return l.refuse(l.errs.AlreadyStarted, what)
}

// Unstart moves Started back to Latent, for a Start whose first work failed
// so that Start may be tried again, as the recipes promise; it reports false
// when Close came first, and then the recipe stays closed.
func (l *Lifecycle) Unstart() bool {
	return l.state.CompareAndSwap(int32(Started), int32(Latent))
}

// Close moves any state to Closed and reports whether this call did it (the
// first Close) and the state it left.
func (l *Lifecycle) Close() (first bool, was State) {
	was = State(l.state.Swap(int32(Closed)))
	return was != Closed, was
}

// Check returns nil while the recipe is started, else the package's
// NotStarted or Closed naming what.
func (l *Lifecycle) Check(what string) error {
	switch l.State() {
	case Started:
		return nil
	case Closed:
		return l.refuse(l.errs.Closed, what)
	}
	return l.refuse(l.errs.NotStarted, what)
}

func (l *Lifecycle) refuse(sentinel error, what string) error {
	if what == "" {
		return sentinel
	}
	return fmt.Errorf("%w: %s", sentinel, what)
}
