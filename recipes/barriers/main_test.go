package barriers_test

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func testCtx(t *testing.T) context.Context { return zktest.Context(t, 60*time.Second) }

func must(t *testing.T, err error) { t.Helper(); zktest.Must(t, err) }

// shortSession is a client through proxy whose session the client gives up
// soon after the proxy pauses.
func shortSession(t *testing.T, proxy *zktest.Proxy) *framework.Client {
	return zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(1200*time.Millisecond))
}

// giveUpSession pauses proxy until c gives up its session, then resumes it.
func giveUpSession(t *testing.T, proxy *zktest.Proxy, c *framework.Client) {
	t.Helper()
	proxy.Pause()
	zktest.Eventually(t, 10*time.Second, "the client gives up its session", func() bool { return c.State() == framework.Lost })
	proxy.Resume()
}
