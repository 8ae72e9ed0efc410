package framework

import (
	"time"

	"go.uber.org/zap"
)

// zkLogger sends go-zookeeper's messages to the client's logger at debug level. It also
// picks up the session timeout the server granted, which go-zookeeper only logs.
type zkLogger struct {
	log    *zap.SugaredLogger
	gen    uint64
	events *queue[loopEvent]
}

// authenticatedFormat is go-zookeeper v1.0.4's message after a session is established.
const authenticatedFormat = "authenticated: id=%d, timeout=%d"

func (l *zkLogger) Printf(format string, args ...any) {
	l.log.Debugf("zk: "+format, args...)
	if format == authenticatedFormat && len(args) == 2 {
		if ms, ok := args[1].(int32); ok && ms > 0 {
			l.events.push(loopEvent{kind: evNegotiated, gen: l.gen, timeout: time.Duration(ms) * time.Millisecond})
		}
	}
}
