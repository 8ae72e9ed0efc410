package barriers_test

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func testCtx(t *testing.T) context.Context { return zktest.Context(t, 60*time.Second) }

func must(t *testing.T, err error) { t.Helper(); zktest.Must(t, err) }
