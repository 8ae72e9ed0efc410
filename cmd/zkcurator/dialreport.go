package main

import (
	"crypto/tls"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
)

// dialReport remembers why the latest attempt to connect to a server
// failed, so that zkcurator can say why no session came: the connection was
// refused or timed out, or a server accepted it but never answered, or
// closed it, during ZooKeeper's handshake (not ZooKeeper, or a port that
// wants TLS).
type dialReport struct {
	mu     sync.Mutex
	reason string
}

// dialer returns report's dial, with a TLS handshake over it when cfg is not
// nil; a failed handshake is recorded as the attempt's outcome.
func (r *dialReport) dialer(cfg *tls.Config) zk.Dialer {
	if cfg == nil {
		return r.dial
	}
	dialTLS := framework.DialTLS(r.dial, cfg)
	return func(network, addr string, timeout time.Duration) (net.Conn, error) {
		conn, err := dialTLS(network, addr, timeout)
		if err != nil {
			r.set(strings.TrimPrefix(err.Error(), "framework: "))
		}
		return conn, err
	}
}

// dial is a zk.Dialer that records each attempt's outcome.
func (r *dialReport) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	conn, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		r.set(err.Error())
		return nil, err
	}
	r.set(fmt.Sprintf("%s accepted the connection but did not answer ZooKeeper's handshake (is it ZooKeeper, without TLS?)", addr))
	return &reportingConn{Conn: conn, r: r, addr: addr}, nil
}

func (r *dialReport) set(reason string) {
	r.mu.Lock()
	r.reason = reason
	r.mu.Unlock()
}

// String returns why the latest attempt failed, "" if it did not.
func (r *dialReport) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reason
}

// reportingConn tells its dialReport how the handshake went: an answer
// clears the reason, an error before any answer replaces it.
type reportingConn struct {
	net.Conn
	r        *dialReport
	addr     string
	answered atomic.Bool
}

func (c *reportingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	switch {
	case c.answered.Load():
	case n > 0:
		c.answered.Store(true)
		c.r.set("")
	case err != nil:
		c.r.set(fmt.Sprintf("%s closed the connection during ZooKeeper's handshake (%v): is it ZooKeeper, without TLS?", c.addr, err))
	}
	return n, err
}
