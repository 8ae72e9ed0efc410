package zktest

import (
	"context"
	"strings"
	"testing"
	"time"
)

// DefaultWait bounds a test's calls when the test names no bound of its own.
const DefaultWait = time.Minute

// TestContext returns a context that ends after DefaultWait or when the test
// ends: Context(tb, DefaultWait).
func TestContext(tb testing.TB) context.Context { return Context(tb, DefaultWait) }

// Context returns a context that ends after d or when the test ends, for
// bounding a test's calls.
func Context(tb testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	tb.Cleanup(cancel)
	return ctx
}

// Must fails the test at once when err is not nil.
func Must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

// PrefixOnce fails the test if err's message carries prefix (a package's,
// such as "leader: ") more than once; what names the call in the failure.
func PrefixOnce(tb testing.TB, prefix, what string, err error) {
	tb.Helper()
	if err != nil && strings.Count(err.Error(), prefix) > 1 {
		tb.Errorf("%s: %q carries the prefix %q more than once", what, err, prefix)
	}
}
