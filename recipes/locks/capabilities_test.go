package locks

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
)

// embeddedStandard embeds the standard driver and changes nothing.
type embeddedStandard struct{ StandardLockInternalsDriver }

// lowestWatching embeds the standard driver and replaces GetsTheLock: its
// waiters watch the lowest node instead of their predecessor.
type lowestWatching struct{ StandardLockInternalsDriver }

func (d lowestWatching) GetsTheLock(ctx context.Context, c *framework.Client, children []string, name string, maxLeases int) (PredicateResults, error) {
	pr, err := d.StandardLockInternalsDriver.GetsTheLock(ctx, c, children, name, maxLeases)
	if err == nil && !pr.GetsTheLock {
		pr.PathToWatch = children[0]
	}
	return pr, err
}

// embeddedUnfair embeds the unfair driver.
type embeddedUnfair struct{ UnfairLockInternalsDriver }

// Each driver gets the capabilities that are safe for it, and only those. A
// driver that embeds the standard one keeps the creation-ordered hand-off
// (its nodes are the standard's) but never the release signals: a signal
// means "the lowest node held and let go", which only the standard driver's
// own GetsTheLock guarantees, and the engine cannot tell whether an
// embedding driver replaced it (lowestWatching did).
func TestCapabilitiesAreThoseSafeForTheDriver(t *testing.T) {
	ttl, err := NewPersistentTTLLockInternalsDriver(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		creationOrdered, releaseSignals, yieldsToFair, releaser, keeper, sessionBound bool
		holderName                                                                    string
	}
	for _, tc := range []struct {
		name      string
		driver    LockInternalsDriver
		maxLeases int
		want      want
	}{
		{"standard, one lease", StandardLockInternalsDriver{}, 1, want{creationOrdered: true, releaseSignals: true, sessionBound: true}},
		{"standard by pointer", &StandardLockInternalsDriver{}, 1, want{creationOrdered: true, releaseSignals: true, sessionBound: true}},
		{"standard, many leases", StandardLockInternalsDriver{}, math.MaxInt32, want{creationOrdered: true, sessionBound: true}},
		{"embedding the standard, unchanged", embeddedStandard{}, 1, want{creationOrdered: true, sessionBound: true}},
		{"embedding the standard, GetsTheLock replaced", lowestWatching{}, 1, want{creationOrdered: true, sessionBound: true}},
		{"unfair", UnfairLockInternalsDriver{}, 1, want{yieldsToFair: true, holderName: UnfairHolderNodeName, sessionBound: true}},
		{"embedding the unfair", embeddedUnfair{}, 1, want{yieldsToFair: true, holderName: UnfairHolderNodeName, sessionBound: true}},
		{"persistent TTL", ttl, 1, want{creationOrdered: true, releaser: true, keeper: true}},
		{"write lock", writeLockDriver{}, 1, want{sessionBound: true}},
		{"read lock", readLockDriver{}, math.MaxInt32, want{creationOrdered: true, sessionBound: true}},
	} {
		caps := capabilitiesOf(tc.driver, tc.maxLeases)
		got := want{
			creationOrdered: caps.creationOrdered,
			releaseSignals:  caps.releaseSignals,
			yieldsToFair:    caps.yieldsToFair,
			releaser:        caps.releaser != nil,
			keeper:          caps.keeper != nil,
			sessionBound:    caps.sessionBound,
			holderName:      caps.holderName,
		}
		if got != tc.want {
			t.Errorf("%s: capabilities %+v; want %+v", tc.name, got, tc.want)
		}
		if caps.create == nil {
			t.Errorf("%s: no create", tc.name)
		}
	}
}

// A driver's invalid fields are refused once, when the lock is built, also
// through a driver that embeds it.
func TestValidateDriverRefusesInvalidFields(t *testing.T) {
	for name, d := range map[string]LockInternalsDriver{
		"nil":                 nil,
		"unfair, -1 digits":   UnfairLockInternalsDriver{SuffixDigits: -1},
		"embedded, 19 digits": embeddedUnfair{UnfairLockInternalsDriver{SuffixDigits: 19}},
	} {
		if err := validateDriver(d, "/a"); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%s: validateDriver = %v; want an error matching ErrInvalidArgument", name, err)
		}
	}
	for name, d := range map[string]LockInternalsDriver{
		"standard":          StandardLockInternalsDriver{},
		"unfair, default":   UnfairLockInternalsDriver{},
		"unfair, 18 digits": embeddedUnfair{UnfairLockInternalsDriver{SuffixDigits: 18}},
	} {
		if err := validateDriver(d, "/a"); err != nil {
			t.Errorf("%s: validateDriver = %v; want nil", name, err)
		}
	}
}
