package zktest

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
)

// peerNet is the network between an ensemble's members: member i reaches
// member j's quorum and election ports through proxies of its own for the
// (i, j) direction, so that links can be cut one direction at a time.
type peerNet struct {
	mu    sync.Mutex
	links [][]*peerLink // [from][to]; nil when from == to
	cut   [][]bool      // [from][to]: the link is paused by a partition
}

// peerLink carries one member's connections to another.
type peerLink struct {
	quorum, election *Proxy
}

// electionHelloMax bounds the address list of an election hello that the
// proxy rewrites; ZooKeeper's own limit is larger, its addresses are short.
const electionHelloMax = 4096

// build replaces every link with new proxies in front of the members' real
// ports and returns, for each member, the ports its configuration lists:
// its own, and the proxies it reaches the others through.
func (pn *peerNet) build(real []ports) ([][]ports, error) {
	pn.close()
	n := len(real)
	pn.mu.Lock()
	defer pn.mu.Unlock()
	pn.links = make([][]*peerLink, n)
	pn.cut = make([][]bool, n)
	for i := range n {
		pn.links[i] = make([]*peerLink, n)
		pn.cut[i] = make([]bool, n)
	}
	views := make([][]ports, n)
	for i := range n {
		views[i] = make([]ports, n)
		for j := range n {
			if i == j {
				views[i][j] = real[j]
				continue
			}
			l, err := pn.newLink(i, j, real[j])
			if err != nil {
				pn.closeLocked()
				return nil, err
			}
			pn.links[i][j] = l
			views[i][j] = ports{quorum: proxyPort(l.quorum), election: proxyPort(l.election)}
		}
	}
	return views, nil
}

// newLink starts the proxies from member i to member j. Election
// connections open with a hello naming the caller's own election address,
// which a member with a higher id dials back instead of keeping the
// connection; the hello is rewritten to name the proxy of the (j, i)
// direction, so the call back runs through the network too.
func (pn *peerNet) newLink(i, j int, to ports) (*peerLink, error) {
	q, err := newProxy(loopback(to.quorum), true, nil)
	if err != nil {
		return nil, err
	}
	back := func() string {
		pn.mu.Lock()
		defer pn.mu.Unlock()
		if l := pn.links[j][i]; l != nil {
			return l.election.Addr()
		}
		return ""
	}
	e, err := newProxy(loopback(to.election), true, func(r *bufio.Reader) ([]byte, error) {
		return rewriteElectionHello(r, back())
	})
	if err != nil {
		q.Close()
		return nil, err
	}
	return &peerLink{quorum: q, election: e}, nil
}

// rewriteElectionHello reads the first message of an election connection
// (protocol version, server id, then the length and text of the caller's
// election addresses) and returns it with the addresses replaced by addr.
// An old-protocol hello (a non-negative version: the id alone) passes as is.
func rewriteElectionHello(r *bufio.Reader, addr string) ([]byte, error) {
	head := make([]byte, 8)
	if _, err := io.ReadFull(r, head); err != nil {
		return nil, err
	}
	if int64(binary.BigEndian.Uint64(head)) >= 0 || addr == "" {
		return head, nil
	}
	rest := make([]byte, 12)
	if _, err := io.ReadFull(r, rest); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint32(rest[8:])
	if size > electionHelloMax {
		return nil, fmt.Errorf("zktest: election hello of %d bytes", size)
	}
	if _, err := io.CopyN(io.Discard, r, int64(size)); err != nil {
		return nil, err
	}
	out := append(head, rest[:8]...)
	out = binary.BigEndian.AppendUint32(out, uint32(len(addr)))
	return append(out, addr...), nil
}

// partition cuts every link between members that share no group and
// restores the others. A member in no group is cut off from every other.
func (pn *peerNet) partition(groups [][]int) error {
	n := len(pn.links)
	together := make([][]bool, n)
	for i := range together {
		together[i] = make([]bool, n)
	}
	for _, g := range groups {
		for _, a := range g {
			if a < 0 || a >= n {
				return fmt.Errorf("zktest: partition names member %d: cluster has members 0..%d", a, n-1)
			}
			for _, b := range g {
				together[a][b] = true
			}
		}
	}
	pn.mu.Lock()
	defer pn.mu.Unlock()
	for i := range n {
		for j := range n {
			if i != j {
				pn.setCutLocked(i, j, !together[i][j])
			}
		}
	}
	return nil
}

// setCutLocked pauses or restores the link from i to j. A cut link is
// silent, as a real partition is; a restored one drops the connections it
// held, as TCP gives up on connections cut for longer than its timeouts,
// and the members connect afresh.
func (pn *peerNet) setCutLocked(i, j int, cut bool) {
	if pn.cut[i][j] == cut {
		return
	}
	pn.cut[i][j] = cut
	for _, p := range []*Proxy{pn.links[i][j].quorum, pn.links[i][j].election} {
		if cut {
			p.Pause()
		} else {
			p.Sever()
			p.Resume()
		}
	}
}

// cuts returns, for each member, the members it cannot reach.
func (pn *peerNet) cuts() [][]int {
	pn.mu.Lock()
	defer pn.mu.Unlock()
	out := make([][]int, len(pn.cut))
	for i, row := range pn.cut {
		for j, c := range row {
			if c {
				out[i] = append(out[i], j)
			}
		}
	}
	return out
}

func (pn *peerNet) close() {
	pn.mu.Lock()
	defer pn.mu.Unlock()
	pn.closeLocked()
}

func (pn *peerNet) closeLocked() {
	for _, row := range pn.links {
		for _, l := range row {
			if l != nil {
				_ = l.quorum.Close() // only a listener's close error: nothing to do
				_ = l.election.Close()
			}
		}
	}
	pn.links, pn.cut = nil, nil
}

func loopback(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }

func proxyPort(p *Proxy) int { return p.ln.Addr().(*net.TCPAddr).Port }
