package zktest

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"time"
)

const (
	// maxFrame is the largest length prefix taken for ZooKeeper framing. A
	// larger one is text, such as a four-letter command and its reply, and the
	// connection is then copied as a plain byte stream.
	maxFrame = 64 << 20
	// maxHeld is how many bytes one direction of a connection holds while
	// paused before the proxy stops reading from its source.
	maxHeld = 8 << 20
	// rawChunk is the read size of a connection copied as a byte stream.
	rawChunk = 32 << 10
	// proxyDialTimeout bounds connecting to the target.
	proxyDialTimeout = 5 * time.Second
	// xidNotification is the xid of a watch notification from the server.
	xidNotification = -1
	// xidPing is the xid of a ping and of its reply.
	xidPing = -2
)

// link is one client connection and its connection to the target. Each
// direction has a reader that queues what it reads and a writer that
// forwards the queue unless the proxy is paused.
type link struct {
	p      *Proxy
	client net.Conn

	// Guarded by p.mu.
	server  net.Conn // nil until dialed
	closed  bool
	up      queue // client to server
	down    queue // server to client
	ended   int   // directions whose end has been forwarded
	losing  bool  // the reply to lostXid is to be lost
	lostXid int32
	session int64 // from the server's handshake reply
}

type queue struct {
	items []item
	bytes int
}

type itemKind int

const (
	itemData  itemKind = iota
	itemEnd            // the source ended: end the destination's stream
	itemSever          // close the whole link
)

type item struct {
	kind itemKind
	data []byte
	due  time.Time // not to be forwarded earlier (SetLatency)
}

// run connects to the target once the proxy is not paused, then starts the
// goroutines that pump both directions until the link closes.
func (l *link) run() {
	p := l.p
	defer p.wg.Done()
	p.mu.Lock()
	for p.paused && !l.closed {
		p.changed.Wait()
	}
	closed := l.closed
	p.mu.Unlock()
	if closed {
		return
	}
	d := net.Dialer{Timeout: proxyDialTimeout}
	server, err := d.DialContext(p.ctx, "tcp", p.target)
	if err != nil {
		l.close()
		return
	}
	p.mu.Lock()
	if l.closed {
		p.mu.Unlock()
		server.Close()
		return
	}
	l.server = server
	p.wg.Add(4)
	p.mu.Unlock()
	go l.readClient()
	go l.readServer()
	go l.write(server, &l.up)
	go l.write(l.client, &l.down)
}

// readClient reads the client's frames: the connect request, then requests
// that start with an xid and an opcode, which it counts and may arm for a
// lost reply.
func (l *link) readClient() {
	p := l.p
	defer p.wg.Done()
	fr := frameReader{r: bufio.NewReaderSize(l.client, rawChunk), raw: p.raw}
	if p.hello != nil {
		first, err := p.hello(fr.r)
		if err != nil {
			l.push(&l.up, item{kind: itemEnd})
			return
		}
		l.push(&l.up, item{kind: itemData, data: first})
	}
	handshake := true
	for l.awaitRoom(&l.up) {
		chunk, framed, err := fr.next()
		if err != nil {
			p.mu.Lock()
			if !l.closed { // the client ended it, not the proxy
				p.ends++
			}
			l.pushLocked(&l.up, item{kind: itemEnd})
			p.mu.Unlock()
			return
		}
		p.mu.Lock()
		if framed && !handshake && len(chunk) >= 12 {
			xid := int32(binary.BigEndian.Uint32(chunk[4:8]))
			op := Op(int32(binary.BigEndian.Uint32(chunk[8:12])))
			p.counts[op]++
			if p.arming != nil && !l.losing && p.arming.matches(op) {
				l.losing, l.lostXid = true, xid
				p.arming = nil
			}
			l.traceLocked(chunk, false)
		}
		handshake = handshake && !framed
		l.pushLocked(&l.up, item{kind: itemData, data: chunk})
		p.mu.Unlock()
	}
}

// readServer reads the server's frames: the connect response, then replies
// and notifications that start with an xid. It drops the reply LoseNextReply
// is waiting for and has the link severed in its place.
func (l *link) readServer() {
	p := l.p
	defer p.wg.Done()
	fr := frameReader{r: bufio.NewReaderSize(l.server, rawChunk), raw: p.raw}
	handshake := true
	for l.awaitRoom(&l.down) {
		chunk, framed, err := fr.next()
		if err != nil {
			l.push(&l.down, item{kind: itemEnd})
			return
		}
		p.mu.Lock()
		if framed && !handshake && len(chunk) >= 8 {
			xid := int32(binary.BigEndian.Uint32(chunk[4:8]))
			if xid == xidNotification {
				p.notifs++
			}
			l.traceLocked(chunk, true)
			if l.losing && xid == l.lostXid {
				l.losing = false
				p.lost++
				l.pushLocked(&l.down, item{kind: itemSever})
				p.mu.Unlock()
				return
			}
		}
		if handshake && framed {
			l.noteHandshakeLocked(chunk)
		}
		handshake = handshake && !framed
		l.pushLocked(&l.down, item{kind: itemData, data: chunk})
		p.mu.Unlock()
	}
}

// write forwards q to dst in order, waiting while the proxy is paused.
func (l *link) write(dst net.Conn, q *queue) {
	p := l.p
	defer p.wg.Done()
	for {
		p.mu.Lock()
		for !l.closed && (p.paused || len(q.items) == 0) {
			p.changed.Wait()
		}
		if l.closed {
			p.mu.Unlock()
			return
		}
		it := q.items[0]
		q.items[0] = item{}
		q.items = q.items[1:]
		q.bytes -= len(it.data)
		p.changed.Broadcast() // room for the reader
		p.mu.Unlock()

		if wait := time.Until(it.due); wait > 0 {
			time.Sleep(wait) // emulated latency, at most the proxy's SetLatency
		}
		switch it.kind {
		case itemData:
			if _, err := dst.Write(it.data); err != nil {
				l.close()
				return
			}
		case itemEnd:
			if tc, ok := dst.(*net.TCPConn); ok {
				_ = tc.CloseWrite()
			}
			p.mu.Lock()
			l.ended++
			done := l.ended == 2
			p.mu.Unlock()
			if done {
				l.close()
			}
			return
		case itemSever:
			l.close()
			return
		}
	}
}

// awaitRoom waits until q may grow; false when the link is closed.
func (l *link) awaitRoom(q *queue) bool {
	p := l.p
	p.mu.Lock()
	defer p.mu.Unlock()
	for !l.closed && q.bytes >= maxHeld {
		p.changed.Wait()
	}
	return !l.closed
}

func (l *link) push(q *queue, it item) {
	l.p.mu.Lock()
	defer l.p.mu.Unlock()
	l.pushLocked(q, it)
}

func (l *link) pushLocked(q *queue, it item) {
	if l.closed {
		return
	}
	if l.p.latency > 0 {
		it.due = time.Now().Add(l.p.latency)
	}
	q.items = append(q.items, it)
	q.bytes += len(it.data)
	l.p.changed.Broadcast()
}

func (l *link) close() {
	l.p.mu.Lock()
	defer l.p.mu.Unlock()
	l.closeLocked()
}

// closeLocked closes both connections, which ends the link's readers, and
// wakes its writers; what was held is dropped.
func (l *link) closeLocked() {
	if l.closed {
		return
	}
	l.closed = true
	delete(l.p.links, l)
	l.client.Close()
	if l.server != nil {
		l.server.Close()
	}
	l.up, l.down = queue{}, queue{}
	l.p.changed.Broadcast()
}

// frameReader splits a stream into ZooKeeper frames (a 4-byte big-endian
// length, then that many bytes) until a length is implausible, and from then
// on into raw chunks.
type frameReader struct {
	r   *bufio.Reader
	raw bool
}

// next returns the next frame, length prefix included (framed true), or the
// next raw chunk.
func (fr *frameReader) next() (chunk []byte, framed bool, err error) {
	if fr.raw {
		buf := make([]byte, rawChunk)
		n, err := fr.r.Read(buf)
		if n > 0 {
			return buf[:n], false, nil
		}
		return nil, false, err
	}
	head := make([]byte, 4)
	if _, err := io.ReadFull(fr.r, head); err != nil {
		return nil, false, err
	}
	size := binary.BigEndian.Uint32(head)
	if size > maxFrame {
		fr.raw = true
		return head, false, nil
	}
	frame := make([]byte, 4+int(size))
	copy(frame, head)
	if _, err := io.ReadFull(fr.r, frame[4:]); err != nil {
		return nil, false, err
	}
	return frame, true, nil
}
