package zkclient

import (
	"sync"

	"github.com/zkcurator/zkcurator/framework"
)

// LostSignal returns a channel that closes when c next reports Lost, and
// the function that stops listening.
func LostSignal(c *framework.Client) (lost <-chan struct{}, stop func()) {
	ch := make(chan struct{})
	var once sync.Once
	stop = c.Listen(func(s framework.ConnectionState) {
		if s == framework.Lost {
			once.Do(func() { close(ch) })
		}
	})
	return ch, stop
}
