package framework

import (
	"errors"
	"fmt"
	"strings"
)

// MetricUnhandledErrors counts the errors reported with ReportError.
const MetricUnhandledErrors = "zkcurator_unhandled_errors_total"

// ListenErrors registers fn to be told of every error that no call can
// return, as Curator's getUnhandledErrorListenable: a failed TLS handshake,
// a rejected authentication, a guaranteed delete the client gave up, and
// what recipes report (an error a LeaderSelector's LeadFunc returned, a
// failed background clean-up). Each is also logged at warn or error level
// and counted in MetricUnhandledErrors, so that with the default logger,
// which logs nothing, they are still seen. Calls happen in order on one
// goroutine of the client (never on go-zookeeper's, never on the reporter's),
// none dropped however slow fn is; errors reported while no listener is
// registered are not kept for later ones. The returned stop is idempotent;
// once it returns no new call to fn starts. fn must not call Close.
func (c *Client) ListenErrors(fn func(error)) (stop func()) {
	return c.core.errListeners.Add(fn) // a nil fn registers nothing
}

// ReportError hands err, an error no caller will see, to the ListenErrors
// listeners and counts it; it never blocks. Recipes call it beside the log
// line of such an error. A nil err is ignored.
func (c *Client) ReportError(err error) { c.core.reportError(err) }

func (k *core) reportError(err error) {
	if err == nil {
		return
	}
	k.met.unhandled.Add(1)
	if k.errListeners.Len() > 0 {
		k.errEvents.Push(err)
	}
}

// dispatchErrors delivers reported errors until stop is closed.
func (k *core) dispatchErrors(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-k.errEvents.Ready():
			for _, err := range k.errEvents.TakeAll() {
				select {
				case <-stop:
					return
				default:
				}
				k.errListeners.Deliver(err)
			}
		}
	}
}

// ErrGuaranteedAbandoned matches the error reported (ListenErrors) when a
// guaranteed delete or a clean-up the client ran in the background failed for
// good or was cut short by Close; the error names the operation and path and
// wraps the last failure.
var ErrGuaranteedAbandoned = errors.New("framework: guaranteed operation abandoned")

// abandoned is the error reported for a guaranteed operation given up.
type abandoned struct {
	what, path string
	err        error
}

func (e *abandoned) Error() string {
	return fmt.Sprintf("%s: %s %q: %s", ErrGuaranteedAbandoned, e.what, e.path, strings.TrimPrefix(e.err.Error(), pkgPrefix))
}

func (e *abandoned) Unwrap() []error { return []error{ErrGuaranteedAbandoned, e.err} }
