package retry_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/retry"
)

// policyFunc is a Policy without a Validate method.
type policyFunc func(int, time.Duration) (time.Duration, bool)

func (f policyFunc) AllowRetry(n int, elapsed time.Duration) (time.Duration, bool) {
	return f(n, elapsed)
}

// failingPolicy has a Validate method of its own.
type failingPolicy struct{ err error }

func (failingPolicy) AllowRetry(int, time.Duration) (time.Duration, bool) { return 0, true }
func (p failingPolicy) Validate() error                                   { return p.err }

func TestValidateAcceptsSensiblePolicies(t *testing.T) {
	for _, p := range []retry.Policy{
		retry.ExponentialBackoff{BaseSleep: time.Millisecond},
		retry.ExponentialBackoff{BaseSleep: time.Millisecond, MaxRetries: math.MaxInt},
		retry.ExponentialBackoff{BaseSleep: time.Millisecond, MaxSleep: time.Millisecond, MaxRetries: 3},
		&retry.ExponentialBackoff{BaseSleep: time.Second, MaxSleep: time.Minute, MaxRetries: 29},
		retry.NTimes{},
		retry.NTimes{N: 5, Sleep: time.Second},
		retry.OneTime{},
		retry.UntilElapsed{MaxElapsed: time.Nanosecond},
		retry.Forever{Interval: time.Nanosecond},
		&retry.Forever{Interval: time.Second},
		policyFunc(func(int, time.Duration) (time.Duration, bool) { return 0, false }),
		failingPolicy{},
	} {
		if err := retry.Validate(p); err != nil {
			t.Errorf("Validate(%#v) = %v, want nil", p, err)
		}
	}
}

func TestValidateNamesTheFieldAndValue(t *testing.T) {
	for _, tc := range []struct {
		policy retry.Policy
		field  string
		value  any
	}{
		{retry.ExponentialBackoff{}, "ExponentialBackoff.BaseSleep", time.Duration(0)},
		{retry.ExponentialBackoff{BaseSleep: -time.Second, MaxRetries: 3}, "ExponentialBackoff.BaseSleep", -time.Second},
		{retry.ExponentialBackoff{BaseSleep: time.Second, MaxSleep: -time.Minute}, "ExponentialBackoff.MaxSleep", -time.Minute},
		{retry.ExponentialBackoff{BaseSleep: time.Second, MaxSleep: 999 * time.Millisecond}, "ExponentialBackoff.MaxSleep", 999 * time.Millisecond},
		{retry.ExponentialBackoff{BaseSleep: time.Second, MaxRetries: -4}, "ExponentialBackoff.MaxRetries", -4},
		{retry.NTimes{N: -2}, "NTimes.N", -2},
		{retry.NTimes{N: 2, Sleep: -3 * time.Millisecond}, "NTimes.Sleep", -3 * time.Millisecond},
		{retry.OneTime{Sleep: -time.Nanosecond}, "OneTime.Sleep", -time.Nanosecond},
		{retry.UntilElapsed{Sleep: time.Second}, "UntilElapsed.MaxElapsed", time.Duration(0)},
		{retry.UntilElapsed{MaxElapsed: -time.Hour}, "UntilElapsed.MaxElapsed", -time.Hour},
		{retry.UntilElapsed{MaxElapsed: time.Hour, Sleep: -time.Second}, "UntilElapsed.Sleep", -time.Second},
		{retry.Forever{}, "Forever.Interval", time.Duration(0)},
		{&retry.Forever{Interval: -time.Millisecond}, "Forever.Interval", -time.Millisecond},
	} {
		err := retry.Validate(tc.policy)
		if err == nil {
			t.Errorf("Validate(%#v) = nil, want an error naming %s", tc.policy, tc.field)
			continue
		}
		if !errors.Is(err, retry.ErrInvalidPolicy) {
			t.Errorf("Validate(%#v) = %v, does not wrap ErrInvalidPolicy", tc.policy, err)
		}
		if want := fmt.Sprintf("%s is %v", tc.field, tc.value); !strings.Contains(err.Error(), want) {
			t.Errorf("Validate(%#v) = %q, want it to contain %q", tc.policy, err, want)
		}
	}
}

func TestValidateMaxSleepBelowBaseSleepNamesBoth(t *testing.T) {
	err := retry.ExponentialBackoff{BaseSleep: 2 * time.Second, MaxSleep: time.Second}.Validate()
	if err == nil || !strings.Contains(err.Error(), "MaxSleep is 1s") || !strings.Contains(err.Error(), "BaseSleep 2s") {
		t.Errorf("Validate() = %v, want it to name MaxSleep 1s and BaseSleep 2s", err)
	}
}

func TestValidateRejectsNil(t *testing.T) {
	for _, p := range []retry.Policy{
		nil,
		(*retry.ExponentialBackoff)(nil),
		(*retry.Forever)(nil),
		policyFunc(nil),
	} {
		err := retry.Validate(p)
		if !errors.Is(err, retry.ErrInvalidPolicy) || !strings.Contains(err.Error(), "nil") {
			t.Errorf("Validate(%#v) = %v, want an ErrInvalidPolicy saying nil", p, err)
		}
	}
	if err := retry.Validate((*retry.NTimes)(nil)); err == nil || !strings.Contains(err.Error(), "*retry.NTimes") {
		t.Errorf("Validate((*NTimes)(nil)) = %v, want it to name the type", err)
	}
}

func TestValidateCallsThePolicysOwnMethod(t *testing.T) {
	own := errors.New("custom policy rejects itself")
	if err := retry.Validate(failingPolicy{err: own}); !errors.Is(err, own) {
		t.Errorf("Validate(failingPolicy) = %v, want %v", err, own)
	}
}
