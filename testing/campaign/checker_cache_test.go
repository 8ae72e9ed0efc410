package campaign

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/recipes/cache"
)

func node(path, data string, czxid int64, version int32) cache.Node {
	return cache.Node{Path: path, Data: []byte(data), Stat: zk.Stat{Czxid: czxid, Version: version}}
}

func TestReplayFollowsConsistentEventsAndFlagsContradictions(t *testing.T) {
	var bad []string
	r := &replay{nodes: make(map[string]cache.Node), bad: func(s string) { bad = append(bad, s) }}
	a0, a1 := node("/t/a", "c0-1", 5, 0), node("/t/a", "c1-2", 5, 1)
	r.Event(cache.NodeCreated, cache.Node{}, a0)
	r.Event(cache.NodeChanged, a0, a1)
	r.Event(cache.NodeCreated, cache.Node{}, node("/t/b", "c2-1", 6, 0))
	r.Event(cache.NodeDeleted, node("/t/b", "c2-1", 6, 0), cache.Node{})
	if len(bad) != 0 {
		t.Fatalf("consistent events were flagged: %q", bad)
	}
	if got, want := r.tree(), []string{"/t/a=c1-2"}; !slices.Equal(got, want) {
		t.Fatalf("replayed %q, want %q", got, want)
	}
	for _, tc := range []struct {
		name      string
		t         cache.ChangeType
		old, node cache.Node
	}{
		{"created again", cache.NodeCreated, cache.Node{}, a1},
		{"changed from a version not told", cache.NodeChanged, a0, node("/t/a", "c3-3", 5, 2)},
		{"changed to an older version", cache.NodeChanged, a1, node("/t/a", "c3-3", 5, 1)},
		{"deleted, never told of", cache.NodeDeleted, node("/t/c", "x", 7, 0), cache.Node{}},
	} {
		bad = nil
		r.Event(tc.t, tc.old, tc.node)
		if len(bad) != 1 {
			t.Errorf("%s: flagged %q, want one contradiction", tc.name, bad)
		}
		r.nodes = map[string]cache.Node{"/t/a": a1}
	}
}

func TestCheckCacheFlagsMissedAgreementContradictionsAndOrphans(t *testing.T) {
	cmp := func(client int, from, to int, outcome Outcome) Hold {
		return Hold{Client: client, Mode: Increment, Target: targetCache, Enter: time.Duration(from) * ms, Exit: time.Duration(to) * ms, Outcome: outcome}
	}
	write := func(client, at int) Hold {
		return Hold{Client: client, Mode: Shared, Target: targetWrite, Enter: time.Duration(at) * ms, Exit: time.Duration(at+1) * ms, Outcome: Accepted}
	}
	faults := []Fault{{N: 1, Kind: SeverClient, Client: 1, Member: -1, Start: 100 * ms, Healed: 100 * ms}}
	good := []Hold{cmp(0, 150, 160, Accepted), cmp(1, 150, 170, Conflict), cmp(1, 200, 210, Accepted), write(0, 300), write(1, 300), cmp(0, 310, 320, Accepted), cmp(1, 310, 320, Accepted)}
	if v := checkCache(good, endState{}, faults, 2, 250*ms, 1500*time.Millisecond); !v.OK() {
		t.Fatalf("a history in which every cache agreed was judged: %q", v.Violations)
	}
	// Client 1's cache never agreed after the fault (it missed an event).
	missed := slices.DeleteFunc(slices.Clone(good), func(h Hold) bool { return h.Client == 1 && h.Outcome == Accepted })
	v := checkCache(missed, endState{}, faults, 2, 250*ms, 1500*time.Millisecond)
	if got := strings.Join(v.Violations, "\n"); !strings.Contains(got, "client 1's cache did not agree") || !strings.Contains(got, "progress: client 1's cache never agreed") {
		t.Errorf("a cache that never agreed was judged: %q", v.Violations)
	}
	bad := append(slices.Clone(good), eventsRecord(0, 180*ms, "NODE_CREATED /t/a: already told of it (version 0)"))
	v = checkCache(bad, endState{Orphans: []string{"/campaign/cache/tree/live/c1"}}, faults, 2, 250*ms, 1500*time.Millisecond)
	if got := strings.Join(v.Violations, "\n"); !strings.Contains(got, "events: client 0") || !strings.Contains(got, "orphans: 1 live node") {
		t.Errorf("a contradiction and an orphan were judged: %q", v.Violations)
	}
}
