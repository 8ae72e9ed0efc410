package campaign

import (
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
)

// put is producer client's seq-th put, entered at ms at.
func put(client, seq int, outcome Outcome, at int) Hold {
	return Hold{Client: client, Seq: seq, Mode: Queued, Target: opPut, Item: queueItem(client, seq), Outcome: outcome,
		Enter: time.Duration(at) * ms, Exit: time.Duration(at+1) * ms, Write: never, LostAt: never}
}

// taken is consumer client's take of producer's seq-th item, entered at ms at.
func taken(client, producer, seq int, outcome Outcome, at int) Hold {
	return Hold{Client: client, Mode: Queued, Target: opTake, Item: queueItem(producer, seq), Outcome: outcome,
		Enter: time.Duration(at) * ms, Exit: time.Duration(at+1) * ms, Write: never, LostAt: never}
}

func suspended(client, at int) StateChange {
	return StateChange{At: time.Duration(at) * ms, Client: client, State: framework.Suspended}
}

func TestCheckQueueAcceptsEveryItemOnce(t *testing.T) {
	holds := []Hold{
		put(0, 0, Accepted, 0), put(0, 1, Unknown, 1), put(0, 2, Unknown, 2), put(0, 3, NoWrite, 3), put(0, 4, Accepted, 4),
		taken(1, 0, 0, NoWrite, 10), // its ctx ended: the item stayed
		taken(1, 0, 0, Accepted, 11), taken(1, 0, 2, Accepted, 12),
	}
	// Item 4 is left in the queue; unknown item 1 never applied, unknown item 2 did.
	v := checkQueue(holds, nil, endState{Queued: []string{queueItem(0, 4)}}, 2, 0)
	const want = "put=2 taken=2 unknown=2 lost=0 doubled=0 failed=1 remaining=1 retaken=0 abandoned=1"
	if got := strings.Join(v.Extra, " "); !v.OK() || got != want {
		t.Fatalf("fields %q (violations %q); want %q and no violation", got, v.Violations, want)
	}
	if v.Accepted != 2 || v.Unapplied != 1 {
		t.Fatalf("accepted=%d unapplied=%d; want 2 and 1", v.Accepted, v.Unapplied)
	}
}

func TestCheckQueueFlagsLostAndDoubledItems(t *testing.T) {
	for _, tc := range []struct {
		name   string
		holds  []Hold
		states []StateChange
		left   []string
		want   string
	}{
		{"a returned put neither taken nor left", []Hold{put(0, 0, Accepted, 0), put(0, 1, Accepted, 1), taken(1, 0, 1, Accepted, 5)}, nil, nil,
			"queue: lost: the put of \"c0-0000000\""},
		{"an abandoned take is no take", []Hold{put(0, 0, Accepted, 0), taken(1, 0, 0, NoWrite, 5), taken(1, 0, 1, Accepted, 6), put(0, 1, Accepted, 1)}, nil, nil,
			"queue: lost: the put of \"c0-0000000\""},
		{"taken twice", []Hold{put(0, 0, Accepted, 0), taken(1, 0, 0, Accepted, 5), taken(3, 0, 0, Accepted, 7)}, nil, nil,
			"queue: doubled: \"c0-0000000\" appeared 2 time(s)"},
		{"an unknown put taken twice", []Hold{put(0, 0, Unknown, 0), taken(1, 0, 0, Accepted, 5), taken(3, 0, 0, Accepted, 7), put(0, 1, Accepted, 1), taken(1, 0, 1, Accepted, 9)}, nil, nil,
			"queue: doubled: \"c0-0000000\" appeared 2 time(s)"},
		{"taken and left", []Hold{put(0, 0, Accepted, 0), taken(1, 0, 0, Accepted, 5)}, nil, []string{queueItem(0, 0)},
			"queue: doubled: \"c0-0000000\" appeared 2 time(s) (1 take(s), 1 node(s) left)"},
		{"left twice", []Hold{put(0, 0, Accepted, 0), put(0, 1, Accepted, 1), taken(1, 0, 1, Accepted, 5)}, nil, []string{queueItem(0, 0), queueItem(0, 0)},
			"queue: doubled: \"c0-0000000\" appeared 2 time(s) (0 take(s), 2 node(s) left)"},
		{"another client's failure excuses nothing", []Hold{put(0, 0, Accepted, 0), taken(1, 0, 0, Accepted, 5), taken(3, 0, 0, Accepted, 9)},
			[]StateChange{suspended(3, 7)}, nil, "queue: doubled:"},
		{"a failure before the take began excuses nothing", []Hold{put(0, 0, Accepted, 0), taken(1, 0, 0, Accepted, 5), taken(3, 0, 0, Accepted, 9)},
			[]StateChange{suspended(1, 4)}, nil, "queue: doubled:"},
		{"a failure after the take again excuses nothing", []Hold{put(0, 0, Accepted, 0), taken(1, 0, 0, Accepted, 5), taken(3, 0, 0, Accepted, 9)},
			[]StateChange{suspended(1, 10)}, nil, "queue: doubled:"},
		{"a reconnection alone excuses nothing", []Hold{put(0, 0, Accepted, 0), taken(1, 0, 0, Accepted, 5), taken(3, 0, 0, Accepted, 9)},
			[]StateChange{{At: 7 * ms, Client: 1, State: framework.Reconnected}}, nil, "queue: doubled:"},
		{"a failed put delivered", []Hold{put(0, 0, NoWrite, 0), put(0, 1, Accepted, 1), taken(1, 0, 0, Accepted, 5), taken(1, 0, 1, Accepted, 6)}, nil, nil,
			"queue: the put of \"c0-0000000\" failed"},
		{"an item no producer put", []Hold{put(0, 0, Accepted, 0), taken(1, 0, 0, Accepted, 5), taken(1, 0, 9, Accepted, 6)}, nil, nil,
			"queue: item \"c0-0000009\" was taken, but no producer put it"},
		{"an item left that no producer put", []Hold{put(0, 0, Accepted, 0), taken(1, 0, 0, Accepted, 5)}, nil, []string{"c0-0000009"},
			"queue: item \"c0-0000009\" is left in the queue, but no producer put it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := checkQueue(tc.holds, tc.states, endState{Queued: tc.left}, 2, 0)
			if violationsWith(v, tc.want) != 1 || len(v.Violations) != 1 {
				t.Fatalf("violations %q; want only one beginning %q", v.Violations, tc.want)
			}
		})
	}
}

// A take again after the earlier taker's connection failed (its delete
// could not reach the server) is the documented at-least-once window:
// counted as retaken, not doubled.
func TestCheckQueueExcusesATakeAgainAfterTheTakersConnectionFailed(t *testing.T) {
	holds := []Hold{put(0, 0, Accepted, 0), taken(1, 0, 0, Accepted, 5), taken(3, 0, 0, Accepted, 9), put(0, 1, Accepted, 1), taken(3, 0, 1, Accepted, 10)}
	// Client 1 learned of the failure while its take ran (its ctx ended only
	// after it returned): the window starts when the take began.
	states := []StateChange{suspended(1, 5)}
	v := checkQueue(holds, states, endState{Queued: []string{queueItem(0, 1)}}, 2, 0)
	// Item 1 was taken and is left too, its taker never interrupted: doubled.
	if violationsWith(v, "queue: doubled: \"c0-0000001\"") != 1 || len(v.Violations) != 1 {
		t.Fatalf("violations %q; want only item 1 doubled", v.Violations)
	}
	states = append(states, StateChange{At: 20 * ms, Client: 3, State: framework.Lost})
	v = checkQueue(holds, states, endState{Queued: []string{queueItem(0, 1)}}, 2, 0)
	const want = "put=2 taken=3 unknown=0 lost=0 doubled=0 failed=0 remaining=1 retaken=2 abandoned=0"
	if got := strings.Join(v.Extra, " "); !v.OK() || got != want {
		t.Fatalf("fields %q (violations %q); want %q and no violation", got, v.Violations, want)
	}
}

func TestCheckQueueFlagsOrphanLocksAndNoProgress(t *testing.T) {
	holds := []Hold{put(0, 0, Accepted, 0), taken(1, 0, 0, Accepted, 5), put(0, 1, Accepted, 20)}
	v := checkQueue(holds, nil, endState{Queued: []string{queueItem(0, 1)}, Orphans: []string{"/q-locks/queue-0000000001"}}, 2, 10*ms)
	if violationsWith(v, "orphans: 1 lock node(s)") != 1 || violationsWith(v, "progress: client 1 ") != 1 || len(v.Violations) != 2 {
		t.Fatalf("violations %q; want the orphan and client 1's progress", v.Violations)
	}
}
