package main

import (
	"context"
	"errors"
	"time"
)

// oneTry is how long connecting may take however short --wait is (0: one
// try), and how long a try at a lock, lease or leadership may take once
// the wait has elapsed: a shorter wait would report a healthy but busy
// ensemble as unreachable.
const oneTry = time.Second

// tryOverrun is how much longer than the rest of its wait an acquisition
// may run before zkcurator ends it itself.
const tryOverrun = 250 * time.Millisecond

// waitClosePatience bounds closing the client once --wait has elapsed: the
// caller asked to be done by then.
const waitClosePatience = 500 * time.Millisecond

// waitBound is --wait as one deadline for connecting and acquiring
// together, from the moment zkcurator starts to connect.
type waitBound struct {
	set      bool
	deadline time.Time
	dial     time.Duration // how long connecting may take
	flag     string        // how a connection that timed out names its limit; "" for --connect-timeout
}

// newWaitBound starts the clock of --wait, if set. Connecting may take the
// whole wait, at least oneTry, never more than connectTimeout.
func (f *holdFlags) newWaitBound(connectTimeout time.Duration) waitBound {
	w := waitBound{dial: connectTimeout}
	if !f.wait.set {
		return w
	}
	w.set, w.deadline = true, time.Now().Add(f.wait.d)
	limit, flag := f.wait.d, "--wait "+f.wait.d.String()
	if limit < oneTry {
		limit, flag = oneTry, flag+" ("+oneTry.String()+" to connect)"
	}
	if limit < connectTimeout {
		w.dial, w.flag = limit, flag
	}
	return w
}

// remaining is what is left of the wait: 0 (one try) once it has elapsed;
// unset without --wait.
func (w waitBound) remaining() optionalDuration {
	if !w.set {
		return optionalDuration{}
	}
	return optionalDuration{d: max(0, time.Until(w.deadline)), set: true}
}

// acquireContext bounds an acquisition by the rest of the wait (plus a try
// when none is left, and tryOverrun), in case it does not return in time
// on its own. Without --wait it only adds a cancel.
func (w waitBound) acquireContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if !w.set {
		return context.WithCancel(ctx)
	}
	left := w.remaining().d
	if left == 0 {
		left = oneTry
	}
	return context.WithTimeout(ctx, left+tryOverrun)
}

// elapsed reports whether err is the end of an acquisition that --wait
// bounded.
func (w waitBound) elapsed(err error) bool {
	return w.set && errors.Is(err, context.DeadlineExceeded)
}
