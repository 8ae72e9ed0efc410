package versioned_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/recipes/internal/versioned"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// A versioned setData whose reply is lost is resolved from the node where
// its state proves the outcome, and reported unknown where it cannot.
func TestSetAfterLostReply(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy, err := zktest.NewProxy(srv.ConnectString())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := zkclient.New(t, proxy.Addr())
	other := zkclient.New(t, srv.ConnectString())

	for _, tc := range []struct {
		name        string
		otherWrites [][]byte // written by another client after our read
		wantUnknown bool
	}{
		{"applied", nil, true},
		{"another wrote the next version", [][]byte{[]byte("theirs")}, false},
		{"another wrote the same bytes", [][]byte{[]byte("ours")}, true},
		{"two later versions", [][]byte{[]byte("a"), []byte("b")}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := "/versioned-" + time.Now().Format("150405.000000000")
			if _, err := c.Create(ctx, path, []byte("start")); err != nil {
				t.Fatal(err)
			}
			_, stat, err := c.GetData(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.otherWrites {
				if _, err := other.SetData(ctx, path, w, -1); err != nil {
					t.Fatal(err)
				}
			}
			lostBefore := proxy.LostReplies()
			proxy.LoseNextReply(zktest.OpSetData)
			_, err = versioned.Set(ctx, c, path, []byte("ours"), stat)
			if proxy.LostReplies() != lostBefore+1 {
				t.Fatalf("no reply was lost")
			}
			switch {
			case tc.wantUnknown && !errors.Is(err, versioned.ErrOutcomeUnknown):
				t.Fatalf("Set = %v, want ErrOutcomeUnknown", err)
			case !tc.wantUnknown && (errors.Is(err, versioned.ErrOutcomeUnknown) || !errors.Is(err, zk.ErrBadVersion)):
				t.Fatalf("Set = %v, want a plain BadVersion", err)
			}
		})
	}

	// Without a loss a stale version is a plain BadVersion.
	if _, err := c.Create(ctx, "/versioned-stale", []byte("x")); err != nil {
		t.Fatal(err)
	}
	_, stat, err := c.GetData(ctx, "/versioned-stale")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.SetData(ctx, "/versioned-stale", []byte("y"), -1); err != nil {
		t.Fatal(err)
	}
	if _, err := versioned.Set(ctx, c, "/versioned-stale", []byte("z"), stat); errors.Is(err, versioned.ErrOutcomeUnknown) || !errors.Is(err, zk.ErrBadVersion) {
		t.Fatalf("stale Set = %v, want a plain BadVersion", err)
	}
}
