package main

import (
	"fmt"
	"slices"
	"time"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

// maxTraced bounds the frames one traced run keeps (about 48 bytes each).
const maxTraced = 1 << 21

// handoff is one measured hand-off: the release call of one session's
// holder and the acquire's return of the next holder, in another session or
// the same one.
type handoff struct {
	releaser, acquirer int64 // session ids
	from, to           time.Time
}

// tracer keeps the frames the -rtt proxy reads during the measured phase
// (-trace-handoffs), so that each hand-off can be split into where its
// time went. The proxy calls record with its lock held, and stops before
// the frames are read: that lock orders the two.
type tracer struct {
	latency time.Duration // the proxy's one-way delay
	frames  []zktest.Frame
	dropped int
}

func (t *tracer) record(f zktest.Frame) {
	if f.Ping() {
		return
	}
	if len(t.frames) == maxTraced {
		t.dropped++
		return
	}
	t.frames = append(t.frames, f)
}

// split is where one hand-off's time went, on one clock: the proxy and
// the clients run in one process.
type split struct {
	out    time.Duration // release call to the releasing request reaching the server
	server time.Duration // from there to the server sending the next holder its notification
	back   time.Duration // from there to the next holder's acquire returning
	ahead  int           // other requests in the server when the releasing one arrived
	after  int           // the next holder's requests between its notification and holding
}

// trace sums up, as medians, how the hand-offs between two sessions that
// it can follow in the frames split up.
type trace struct {
	n                 int
	out, server, back time.Duration
	ahead, after      float64 // means
}

// String renders the trace for the RESULT line, each field with a leading
// space; nothing when no hand-off was followed.
func (tr trace) String() string {
	if tr.n == 0 {
		return ""
	}
	return fmt.Sprintf(" traced_handoffs=%d handoff_out_ms=%.3f handoff_server_ms=%.3f handoff_back_ms=%.3f handoff_reqs_ahead=%.2f handoff_reqs_after_notif=%.2f",
		tr.n, ms(tr.out), ms(tr.server), ms(tr.back), tr.ahead, tr.after)
}

// analyze follows each hand-off from one session to another through the
// frames: the releaser's first request after its release call (its delete,
// or the transaction that deletes), and the first watch notification the
// next holder got after that request reached the server (the proxy's read
// plus its delay). A hand-off within
// one session, or one whose frames are not all there, is left out.
func (t *tracer) analyze(hs []handoff) trace {
	bySession := make(map[int64][]int) // indexes into frames, in read order
	replies := make(map[[2]int64]time.Time)
	for i, f := range t.frames {
		bySession[f.Session] = append(bySession[f.Session], i)
		if f.FromServer && f.Xid > 0 {
			replies[[2]int64{f.Session, int64(f.Xid)}] = f.Read
		}
	}
	var splits []split
	for _, h := range hs {
		if h.releaser == h.acquirer || h.releaser == 0 {
			continue
		}
		if s, ok := t.follow(h, bySession, replies); ok {
			splits = append(splits, s)
		}
	}
	return summarize(splits)
}

func (t *tracer) follow(h handoff, bySession map[int64][]int, replies map[[2]int64]time.Time) (split, bool) {
	at, ok := t.first(bySession[h.releaser], h.from, func(f zktest.Frame) bool { return !f.FromServer && f.Xid > 0 })
	if !ok {
		return split{}, false
	}
	req := t.frames[at]
	arrived := req.Read.Add(t.latency)
	// What the releasing request set off comes after the server had it.
	n, ok := t.first(bySession[h.acquirer], arrived, zktest.Frame.Notification)
	if !ok || t.frames[n].Read.After(h.to) {
		return split{}, false
	}
	notif := t.frames[n]
	s := split{out: arrived.Sub(h.from), server: notif.Read.Sub(arrived), back: h.to.Sub(notif.Read)}
	for _, i := range bySession[h.acquirer] {
		f := t.frames[i]
		if !f.FromServer && f.Xid > 0 && !f.Read.Before(notif.Read) && f.Read.Before(h.to) {
			s.after++
		}
	}
	// In the server when ours arrived: sent before it and answered after.
	// The frames are in read order; a request read more than aheadWindow
	// before ours is taken to be answered.
	for i := at - 1; i >= 0 && req.Read.Sub(t.frames[i].Read) < aheadWindow; i-- {
		f := t.frames[i]
		if f.FromServer || f.Xid <= 0 || f.Session == h.releaser {
			continue
		}
		if out, ok := replies[[2]int64{f.Session, int64(f.Xid)}]; ok && out.After(arrived) {
			s.ahead++
		}
	}
	return s, true
}

// aheadWindow bounds how far back a hand-off looks for requests still in
// the server when its releasing request arrived.
const aheadWindow = 100 * time.Millisecond

// first returns the index in t.frames of the first frame among idx read at
// or after since that ok accepts.
func (t *tracer) first(idx []int, since time.Time, ok func(zktest.Frame) bool) (int, bool) {
	at, _ := slices.BinarySearchFunc(idx, since, func(i int, since time.Time) int { return t.frames[i].Read.Compare(since) })
	for _, i := range idx[at:] {
		if ok(t.frames[i]) {
			return i, true
		}
	}
	return 0, false
}

func summarize(splits []split) trace {
	if len(splits) == 0 {
		return trace{}
	}
	tr := trace{n: len(splits)}
	var out, server, back []time.Duration
	for _, s := range splits {
		out, server, back = append(out, s.out), append(server, s.server), append(back, s.back)
		tr.ahead += float64(s.ahead)
		tr.after += float64(s.after)
	}
	tr.ahead /= float64(len(splits))
	tr.after /= float64(len(splits))
	tr.out, tr.server, tr.back = percentile(out, 50), percentile(server, 50), percentile(back, 50)
	return tr
}
