package docnum_test

import (
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/internal/docnum"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/atomic"
	"github.com/zkcurator/zkcurator/retry"
)

// cited returns the numbers pattern captures in rel, failing the test when
// the sentence is gone.
func cited(t *testing.T, rel, pattern string) []int64 {
	t.Helper()
	n, err := docnum.Cited(rel, pattern)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The numbers the docs cite for exported behaviour are the code's. Numbers
// of unexported constants are checked beside them, in their own packages
// (recipes/cache's docnumbers_test.go).
func TestDocsCiteTheCodesNumbers(t *testing.T) {
	t.Run("retry cap", func(t *testing.T) {
		// Cited three times: the package doc, the field and AllowRetry.
		for _, c := range []struct{ rel, pattern string }{
			{"retry/doc.go", `MaxRetries pinned to (\d+)`},
			{"retry/exponential.go", `MaxRetries is the number of retries allowed, pinned to (\d+)`},
			{"retry/exponential.go", `below MaxRetries \(pinned to (\d+)\)`},
		} {
			limit := int(cited(t, c.rel, c.pattern)[0])
			p := retry.ExponentialBackoff{BaseSleep: time.Nanosecond, MaxSleep: time.Nanosecond, MaxRetries: limit + 100}
			if _, ok := p.AllowRetry(limit-1, 0); !ok {
				t.Errorf("%s says retries are pinned to %d, but retry %d is refused", c.rel, limit, limit-1)
			}
			if _, ok := p.AllowRetry(limit, 0); ok {
				t.Errorf("%s says retries are pinned to %d, but retry %d is allowed", c.rel, limit, limit)
			}
		}
	})
	t.Run("protected id length", func(t *testing.T) {
		want := cited(t, "protection/doc.go", `a UUID in its (\d+)-character text`)[0]
		if got := len(protection.NewID()); int64(got) != want {
			t.Errorf("protection/doc.go says a %d-character id; NewID gives %d", want, got)
		}
	})
	t.Run("default session timeout", func(t *testing.T) {
		want := time.Duration(cited(t, "framework/options.go", `WithSessionTimeout sets the session timeout the client asks for \(default (\d+) s\)`)[0]) * time.Second
		c, err := framework.NewClient("127.0.0.1:1", retry.OneTime{}) // never started: the requested timeout
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if got := c.SessionTimeout(); got != want {
			t.Errorf("framework/options.go says the session timeout defaults to %v; a client asks for %v", want, got)
		}
	})
	t.Run("atomic default retry policy", func(t *testing.T) {
		n := cited(t, "recipes/atomic/options.go", `up to (\d+) retries after a conflict, with Curator's randomized exponential sleeps from (\d+) ms, capped at (\d+) ms`)
		p, ok := atomic.DefaultRetryPolicy.(retry.ExponentialBackoff)
		want := retry.ExponentialBackoff{MaxRetries: int(n[0]), BaseSleep: time.Duration(n[1]) * time.Millisecond, MaxSleep: time.Duration(n[2]) * time.Millisecond}
		if !ok || p != want {
			t.Errorf("recipes/atomic/options.go describes %+v; DefaultRetryPolicy is %+v", want, atomic.DefaultRetryPolicy)
		}
	})
}

// Cited reads sentences wrapped across comment lines and thousands
// separators, and a sentence that is gone is an error naming it.
func TestCitedReadsWrappedProse(t *testing.T) {
	n, err := docnum.Cited("recipes/cache/doc.go", `a slack of ([\d,]+) events`)
	if err != nil || len(n) != 1 || n[0] < 1000 {
		t.Errorf("Cited across a wrapped comment with a separator = %v, %v", n, err)
	}
	if _, err := docnum.Cited("README.md", `a sentence nobody wrote (\d+)`); err == nil || !strings.Contains(err.Error(), "README.md") {
		t.Errorf("a missing sentence: %v, want an error naming the file", err)
	}
}
