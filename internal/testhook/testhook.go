// Package testhook lets this module's tests reach what package framework
// keeps to itself, so that they can play, deterministically, orders that
// depend on when a client runs its background work. Package framework sets
// the hooks when it is initialized; nothing else in the module calls them.
package testhook

// HoldBackground stops the queue of guaranteed operations (guaranteed
// deletes, clean-ups of failed protected creates) of client, a
// *framework.Client, from starting another operation until resume is
// called; operations keep being queued meanwhile. resume returns a channel
// that is closed once the queue has run empty.
var HoldBackground func(client any) (resume func() (idle <-chan struct{}))
