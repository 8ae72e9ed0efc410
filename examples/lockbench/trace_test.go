package main

import (
	"slices"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

// A synthetic trace: the releaser R's delete reaches the server 1 ms after
// it is read, the waiter W is notified 0.5 ms later and holds after one
// more request; of two other requests sent before R's, one is answered
// before R's arrives (not ahead) and one after (ahead).
func TestAnalyzeSplitsAHandoff(t *testing.T) {
	const r, w, other = 1, 2, 3
	t0 := time.Unix(1000, 0)
	at := func(us int) time.Time { return t0.Add(time.Duration(us) * time.Microsecond) }
	tr := &tracer{latency: time.Millisecond}
	for _, f := range []zktest.Frame{
		{Session: other, Read: at(0), Xid: 7, Op: zktest.OpGetData},      // reaches the server at 1000
		{Session: other, Read: at(100), Xid: 8, Op: zktest.OpGetData},    // at 1100
		{Session: other, Read: at(1050), Xid: 7, FromServer: true},       // answered before R's arrives
		{Session: r, Read: at(300), Xid: 40, Op: zktest.OpDelete},        // R's delete, at the server at 1300
		{Session: other, Read: at(1400), Xid: 8, FromServer: true},       // answered after: was ahead
		{Session: r, Read: at(1700), Xid: 40, FromServer: true},          // the delete's reply
		{Session: w, Read: at(1800), Xid: -1, FromServer: true},          // W's notification
		{Session: w, Read: at(1900), Xid: 12, Op: zktest.OpGetChildren2}, // one more request
		{Session: w, Read: at(2900), Xid: 12, FromServer: true},          // its reply
		{Session: w, Read: at(5000), Xid: 13, Op: zktest.OpGetData},      // after holding: not counted
	} {
		tr.record(f)
	}
	// The frames come in read order, as the proxy reads them.
	slices.SortStableFunc(tr.frames, func(a, b zktest.Frame) int { return a.Read.Compare(b.Read) })

	got := tr.analyze([]handoff{
		{releaser: r, acquirer: w, from: at(200), to: at(3800)},
		{releaser: w, acquirer: w, from: at(3900), to: at(4000)}, // within one session: left out
	})
	want := trace{n: 1, out: 1100 * time.Microsecond, server: 500 * time.Microsecond, back: 2000 * time.Microsecond, ahead: 1, after: 1}
	if got != want {
		t.Errorf("analyze = %+v, want %+v", got, want)
	}
	if s := got.String(); s != " traced_handoffs=1 handoff_out_ms=1.100 handoff_server_ms=0.500 handoff_back_ms=2.000 handoff_reqs_ahead=1.00 handoff_reqs_after_notif=1.00" {
		t.Errorf("String = %q", s)
	}
	if s := (trace{}).String(); s != "" {
		t.Errorf("an empty trace renders %q, want nothing", s)
	}
}
