package framework

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/go-zookeeper/zk"
)

// errDialAborted is what a dial of a connection being closed returns.
var errDialAborted = errors.New("framework: connection closed while dialing")

// connDialer opens the connections of one go-zookeeper Conn: it resolves the
// server's name (resolver), dials its addresses in turn through WithDialer's
// dialer (a plain TCP dial by default) and, with WithTLS, runs the handshake
// with the name as written in the connect string. Every step ends as soon as
// ctx does: closing the Conn cancels it, so that Close never waits for a
// dial, a lookup or a handshake to a server that does not answer.
type connDialer struct {
	ctx     context.Context
	base    zk.Dialer  // nil: a TCP dial that ends with ctx
	tls     *tlsDialer // nil without WithTLS
	resolve *resolver
}

func (d *connDialer) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	if d.ctx.Err() != nil {
		return nil, errDialAborted
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ips, err := d.resolve.resolve(d.ctx, host)
	if err != nil {
		return nil, err
	}
	var raw net.Conn
	for _, ip := range ips {
		if raw, err = d.dialAddr(network, net.JoinHostPort(ip, port), timeout); err == nil {
			break
		}
		if d.ctx.Err() != nil {
			return nil, errDialAborted
		}
	}
	if err != nil {
		return nil, err
	}
	if d.tls == nil {
		return raw, nil
	}
	conn, err := d.tls.handshake(d.ctx, raw, addr, host, timeout)
	if err != nil && d.ctx.Err() != nil {
		return nil, errDialAborted
	}
	return conn, err
}

// dialAddr dials one address. A dialer of WithDialer takes no ctx: a
// connection it returns after ctx ended is closed.
func (d *connDialer) dialAddr(network, addr string, timeout time.Duration) (net.Conn, error) {
	if d.base == nil {
		nd := net.Dialer{Timeout: timeout}
		return nd.DialContext(d.ctx, network, addr)
	}
	c, err := d.base(network, addr, timeout)
	if err == nil && d.ctx.Err() != nil {
		c.Close()
		return nil, errDialAborted
	}
	return c, err
}
