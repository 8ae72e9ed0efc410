package campaign

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/zkcurator/zkcurator/framework"
)

// Mode is the kind of lock a hold was of.
type Mode int

const (
	// Exclusive is the mutex, or the write lock of a read/write lock: the
	// holder writes.
	Exclusive Mode = iota
	// Shared is the read lock of a read/write lock: the holder only reads.
	Shared
	// Leased is a semaphore's lease: the holder only reads, and at most
	// maxLeases may hold at once.
	Leased
	// Increment is one increment of the counter campaign: Enter and Exit
	// frame the call, Counter and Post its pre and post values.
	Increment
	// Queued is one put or take of the queue campaign (Target says which,
	// Item names the item): Enter and Exit frame the put, or the consumer's
	// call for a take.
	Queued
)

// String returns "W" for Exclusive, "R" for Shared, "L" for Leased, "I"
// for Increment and "Q" for Queued.
func (m Mode) String() string {
	switch m {
	case Shared:
		return "R"
	case Leased:
		return "L"
	case Increment:
		return "I"
	case Queued:
		return "Q"
	}
	return "W"
}

// Outcome is what became of a hold's write as its worker saw it.
type Outcome int

const (
	// NoWrite: a read hold, or a hold that ended before it could decide
	// (no fencing token, a failed read of the fence or counter).
	NoWrite Outcome = iota
	// Accepted: the transaction succeeded.
	Accepted
	// Stale: the worker's token was not above the fence, so it did not write.
	Stale
	// Conflict: the transaction was refused because the fence or the counter
	// changed after the worker read them.
	Conflict
	// Unknown: the transaction failed without a verdict (connection loss, a
	// timeout); whether it took effect is decided from the acknowledgement
	// node when the campaign ends.
	Unknown
)

// String names the outcome.
func (o Outcome) String() string {
	switch o {
	case NoWrite:
		return "no-write"
	case Accepted:
		return "accepted"
	case Stale:
		return "rejected-stale"
	case Conflict:
		return "rejected-conflict"
	case Unknown:
		return "unknown"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// never marks a time that did not happen (no write, Lost not seen).
const never time.Duration = -1

// Hold is the record of one acquisition: from the moment Acquire returned
// until the moment the worker called Release. Times are offsets from the
// campaign's start on the monotonic clock; all workers share that clock.
type Hold struct {
	Client int
	Seq    int // the worker's iteration; names the acknowledgement node
	Mode   Mode

	Enter time.Duration // Acquire returned holding the lock
	Write time.Duration // the write was decided (sent or refused); never if not reached
	Exit  time.Duration // just before Release

	// LostAt is when the worker first saw the hold's Lost channel closed
	// before Exit; never if it stayed open for the whole hold.
	LostAt time.Duration
	// LostAtWrite and LostAtExit are the Lost channel's state when the write
	// was decided and at Exit.
	LostAtWrite, LostAtExit bool

	Token   int64 // the hold's fencing token (0: none could be read)
	Fence   int64 // the fence the worker read: the highest token that had written
	Counter int64 // the counter the worker read (an increment's pre value)

	Target string // what an Increment incremented (targetLong, targetCount), or a Queued op's kind (opPut, opTake)
	Item   string // the item a Queued op put or took
	Post   int64  // an applied increment's post value
	// Promoted marks an increment of the long that reached the promoted
	// lock (it held the lock for at least one try).
	Promoted bool

	// Frozen marks a hold of a contender process that the nemesis stopped
	// (SIGSTOP) at FrozenAt and continued at ThawedAt, past its session
	// timeout: its clean window ends at FrozenAt (see checkOverlaps).
	Frozen             bool
	FrozenAt, ThawedAt time.Duration

	// Barrier is a barrier campaign's round (nil for the other kinds).
	Barrier *BarrierRound

	Outcome Outcome
	// Applied is decided after the campaign from the acknowledgement nodes:
	// the write took effect on the ensemble.
	Applied bool
	Err     string
}

// wrote reports whether the hold sent a write transaction.
func (h *Hold) wrote() bool {
	return h.Outcome == Accepted || h.Outcome == Conflict || h.Outcome == Unknown
}

// cleanUntil is the end of the hold's clean window: the time until which the
// worker held the lock without having seen Lost.
func (h *Hold) cleanUntil() time.Duration {
	end := h.Exit
	if h.LostAt != never && h.LostAt < end {
		end = h.LostAt
	}
	if h.Frozen && h.FrozenAt < end {
		end = h.FrozenAt
	}
	return end
}

// String is one line of the history.
func (h *Hold) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%9s c%d#%d %s enter=%s exit=%s", fmtDur(h.Enter), h.Client, h.Seq, h.Mode, fmtDur(h.Enter), fmtDur(h.Exit))
	if h.LostAt != never {
		fmt.Fprintf(&b, " lost@%s", fmtDur(h.LostAt))
	}
	switch h.Mode {
	case Increment:
		if h.Barrier != nil {
			fmt.Fprintf(&b, " %s -> %s", h.Barrier, h.Outcome)
			break
		}
		fmt.Fprintf(&b, " %s %d->%d -> %s", h.Target, h.Counter, h.Post, h.Outcome)
		if h.Promoted {
			b.WriteString(" promoted")
		}
	case Queued:
		fmt.Fprintf(&b, " %s %s -> %s", h.Target, h.Item, h.Outcome)
	case Exclusive:
		fmt.Fprintf(&b, " token=%#x fence=%#x counter=%d", h.Token, h.Fence, h.Counter)
		if h.Write != never {
			fmt.Fprintf(&b, " write@%s lostAtWrite=%t", fmtDur(h.Write), h.LostAtWrite)
		}
		fmt.Fprintf(&b, " -> %s", h.Outcome)
		if h.wrote() {
			fmt.Fprintf(&b, " applied=%t", h.Applied)
		}
	default:
		fmt.Fprintf(&b, " counter=%d", h.Counter)
	}
	if h.Frozen {
		fmt.Fprintf(&b, " frozen@%s thawed@%s", fmtDur(h.FrozenAt), fmtDur(h.ThawedAt))
	}
	fmt.Fprintf(&b, " lostAtExit=%t", h.LostAtExit)
	if h.Err != "" {
		fmt.Fprintf(&b, " err=%q", h.Err)
	}
	return b.String()
}

func fmtDur(d time.Duration) string {
	if d == never {
		return "-"
	}
	return fmt.Sprintf("%.3fs", d.Seconds())
}

// clock measures offsets from the campaign's start on the monotonic clock.
type clock struct{ start time.Time }

func newClock() clock { return clock{start: time.Now()} }

func (c clock) now() time.Duration { return time.Since(c.start) }

// StateChange is a connection state a client reported, and when.
type StateChange struct {
	At     time.Duration
	Client int
	State  framework.ConnectionState
}

// String is one line of the history.
func (s *StateChange) String() string {
	return fmt.Sprintf("%9s c%d state %s", fmtDur(s.At), s.Client, s.State)
}

// recorder collects the holds of all workers and the connection states of
// their clients. It is safe for concurrent use.
type recorder struct {
	mu     sync.Mutex
	holds  []Hold
	states []StateChange
}

func (h *recorder) addState(s StateChange) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.states = append(h.states, s)
}

// stateChanges returns a copy of the recorded state changes in the order they
// were reported.
func (h *recorder) stateChanges() []StateChange {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]StateChange(nil), h.states...)
}

func (h *recorder) add(rec Hold) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.holds = append(h.holds, rec)
}

// sortedHolds returns a copy of the recorded holds ordered by Enter.
func (h *recorder) sortedHolds() []Hold {
	h.mu.Lock()
	out := append([]Hold(nil), h.holds...)
	h.mu.Unlock()
	sort.SliceStable(out, func(i, j int) bool { return out[i].Enter < out[j].Enter })
	return out
}

// progressed reports which clients have, since from, made an accepted write
// and (when reads is set) a read hold that never saw Lost.
func (h *recorder) progressed(clients int, from time.Duration, reads bool) []bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return progressOf(h.holds, clients, from, reads, func(r *Hold) bool { return r.Outcome == Accepted })
}

// progressOf marks the clients that, among holds entered at or after from,
// have a write that counts (applied) and, when reads is set, a clean read;
// in a semaphore campaign a lease held without seeing Lost counts as both.
func progressOf(holds []Hold, clients int, from time.Duration, reads bool, applied func(*Hold) bool) []bool {
	wrote := make([]bool, clients)
	read := make([]bool, clients)
	for i := range holds {
		r := &holds[i]
		if r.Enter < from || r.Client < 0 || r.Client >= clients {
			continue
		}
		switch {
		case (r.Mode == Exclusive || r.Mode == Increment || r.Mode == Queued) && applied(r):
			wrote[r.Client] = true
		case r.Mode == Shared && !r.LostAtExit:
			read[r.Client] = true
		case r.Mode == Leased && !r.LostAtExit:
			wrote[r.Client], read[r.Client] = true, true
		}
	}
	done := make([]bool, clients)
	for i := range done {
		done[i] = wrote[i] && (!reads || read[i])
	}
	return done
}
