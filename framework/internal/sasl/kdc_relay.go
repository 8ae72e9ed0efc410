package sasl

import (
	"context"
	"io"
	"net"
	"sync"

	"github.com/jcmturner/gokrb5/v8/config"
)

// kdcRelay carries one ticket fetch's KDC requests, so that the fetch ends
// with its ctx: gokrb5 takes no ctx and waits on a KDC that stalls 5 s a
// KDC and transport, past the connection it was for and past the client's
// Close. gokrb5 is pointed at a listener on 127.0.0.1 for each KDC and
// speaks TCP only (RFC 4120 section 7.2.2: every KDC accepts TCP); the
// relay dials the KDC under ctx and copies the bytes. When ctx ends, or
// stop is called, every connection closes, and gokrb5's wait with it.
type kdcRelay struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	lns   []net.Listener
	conns map[net.Conn]struct{}
}

// relayKDCs points cfg's KDCs (those of its realms, and the DNS's for
// realm when cfg looks them up there) at a new relay under ctx.
func relayKDCs(ctx context.Context, cfg *config.Config, realm string) (*kdcRelay, error) {
	ctx, cancel := context.WithCancel(ctx)
	r := &kdcRelay{ctx: ctx, cancel: cancel, conns: make(map[net.Conn]struct{})}
	if cfg.LibDefaults.DNSLookupKDC && !hasRealm(cfg, realm) {
		if _, kdcs, err := cfg.GetKDCs(realm, true); err == nil {
			rl := config.Realm{Realm: realm}
			for i := 1; i <= len(kdcs); i++ {
				rl.KDC = append(rl.KDC, kdcs[i])
			}
			cfg.Realms = append(cfg.Realms, rl)
		}
	}
	for i := range cfg.Realms {
		for j, kdc := range cfg.Realms[i].KDC {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				r.stop()
				return nil, err
			}
			r.lns = append(r.lns, ln)
			r.wg.Add(1)
			go r.accept(ln, kdc)
			cfg.Realms[i].KDC[j] = ln.Addr().String()
		}
	}
	cfg.LibDefaults.UDPPreferenceLimit = 1 // TCP only
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		<-ctx.Done()
		r.closeAll()
	}()
	return r, nil
}

func hasRealm(cfg *config.Config, realm string) bool {
	for _, rl := range cfg.Realms {
		if rl.Realm == realm && len(rl.KDC) > 0 {
			return true
		}
	}
	return false
}

// stop ends every connection of the relay and waits for its goroutines.
func (r *kdcRelay) stop() {
	r.cancel()
	r.closeAll()
	r.wg.Wait()
}

func (r *kdcRelay) closeAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ln := range r.lns {
		ln.Close()
	}
	for c := range r.conns {
		c.Close()
	}
}

// track records c to be closed with the relay; false once it is closing.
func (r *kdcRelay) track(c net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ctx.Err() != nil {
		c.Close()
		return false
	}
	r.conns[c] = struct{}{}
	return true
}

func (r *kdcRelay) accept(ln net.Listener, kdc string) {
	defer r.wg.Done()
	for {
		in, err := ln.Accept()
		if err != nil {
			return
		}
		if !r.track(in) {
			return
		}
		r.wg.Add(1)
		go r.carry(in, kdc)
	}
}

// carry copies one request and its reply between gokrb5 and the KDC; a
// KDC that cannot be reached closes gokrb5's connection at once.
func (r *kdcRelay) carry(in net.Conn, kdc string) {
	defer r.wg.Done()
	defer in.Close()
	var d net.Dialer
	out, err := d.DialContext(r.ctx, "tcp", kdc)
	if err != nil || !r.track(out) {
		return
	}
	defer out.Close()
	done := make(chan struct{})
	go func() {
		io.Copy(out, in)
		out.(*net.TCPConn).CloseWrite()
		close(done)
	}()
	io.Copy(in, out)
	in.Close()
	<-done
}
