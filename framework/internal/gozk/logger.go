package gozk

import "time"

// authenticatedFormat is go-zookeeper v1.0.4's message after a session is
// established, with the session id and the negotiated timeout in ms.
const authenticatedFormat = "authenticated: id=%d, timeout=%d"

// Logger is a go-zookeeper logger that passes every message to Print and
// reports each session timeout the server grants to Negotiated.
type Logger struct {
	Print      func(format string, args ...any)
	Negotiated func(time.Duration)
}

// Printf implements zk.Logger.
func (l Logger) Printf(format string, args ...any) {
	l.Print(format, args...)
	if format == authenticatedFormat && len(args) == 2 {
		if ms, ok := args[1].(int32); ok && ms > 0 {
			l.Negotiated(time.Duration(ms) * time.Millisecond)
		}
	}
}
