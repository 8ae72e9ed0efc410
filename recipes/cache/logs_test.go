package cache_test

import (
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// A cache logs through its client's logger when no WithLogger is given: a
// read whose reply is lost is logged there as the cache out of step.
func TestCacheLogsThroughItsClient(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	writer := zkclient.New(t, srv.ConnectString())
	core, logs := observer.New(zapcore.DebugLevel)
	c := zkclient.New(t, p.Addr(), framework.WithSessionTimeout(10*time.Second), framework.WithLogger(zap.New(core)))
	ctx := testCtx(t)
	_, err := writer.Create(ctx, "/logged", nil)
	must(t, err)
	_, err = writer.Create(ctx, "/logged/a", []byte("1"))
	must(t, err)
	tc, err := cache.NewTreeCache(c, "/logged")
	must(t, err)
	must(t, tc.Start(ctx))
	defer tc.Close()

	p.LoseNextReply(zktest.OpGetData)
	_, err = writer.SetData(ctx, "/logged/a", []byte("2"), -1)
	must(t, err)
	zktest.Eventually(t, 20*time.Second, "the cache's retry logged through the client's logger", func() bool {
		return logs.FilterMessage("cache out of step; trying again").Len() > 0
	})
}
