package interop

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Event kinds printed by the helper. Kinds for a command carry its id; READY and
// STATE carry the id "-".
const (
	KindReady           = "READY"            // connected: <session id hex> <negotiated session timeout ms>
	KindState           = "STATE"            // Curator connection state: <CONNECTED|SUSPENDED|RECONNECTED|LOST|READ_ONLY>
	KindOK              = "OK"               // a definition or makeRevocable took effect
	KindAcquired        = "ACQUIRED"         // <target> <node path>; stamped right after the acquire returned
	KindTimeout         = "TIMEOUT"          // <target>: the acquire's own timeout passed
	KindReleased        = "RELEASED"         // <target>; stamped right before the release began, printed after it
	KindRound           = "ROUND"            // <target> <acquired nanos> <releasing nanos> <value written>
	KindCounted         = "COUNTED"          // <target> <rounds>: a count command finished
	KindParticipants    = "PARTICIPANTS"     // <target> <comma-separated node paths or "-">
	KindProtected       = "PROTECTED"        // <true|false> per name asked about
	KindRevokeRequested = "REVOKE_REQUESTED" // <target>: Curator called the revocation listener
	KindRevokeSent      = "REVOKE_SENT"      // <node path>: Revoker.attemptRevoke returned
	KindEntered         = "ENTERED"          // <handle> <true|false>: a double barrier's enter returned (false: its timeout passed)
	KindLeft            = "LEFT"             // <handle> <true|false>: a double barrier's leave returned (false: its timeout passed)
	KindBye             = "BYE"              // the client closed; the process exits
	KindError           = "ERROR"            // <exception class>: <message>
)

// Event is one line the helper printed: EVENT <unix-nanos> <id> <kind> [fields...].
type Event struct {
	At     time.Time // the helper's wall clock when the event happened (see the kinds for what is stamped)
	ID     string    // the command's id, or "-" when no command caused it
	Kind   string
	Fields []string
}

// String formats the event as the helper printed it.
func (e Event) String() string {
	s := fmt.Sprintf("EVENT %d %s %s", e.At.UnixNano(), e.ID, e.Kind)
	if len(e.Fields) > 0 {
		s += " " + strings.Join(e.Fields, " ")
	}
	return s
}

// Field returns the i-th field, or "" when the event has fewer.
func (e Event) Field(i int) string {
	if i < 0 || i >= len(e.Fields) {
		return ""
	}
	return e.Fields[i]
}

// parseEvent parses one helper output line.
func parseEvent(line string) (Event, error) {
	f := strings.Fields(line)
	if len(f) < 4 || f[0] != "EVENT" {
		return Event{}, fmt.Errorf("interop: not an event line: %q", line)
	}
	nanos, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return Event{}, fmt.Errorf("interop: bad event time in %q: %w", line, err)
	}
	return Event{At: time.Unix(0, nanos), ID: f[2], Kind: f[3], Fields: f[4:]}, nil
}
