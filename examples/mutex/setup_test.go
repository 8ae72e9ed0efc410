package main

import (
	"context"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// TestStageCloseRemovesNamespace checks that Close leaves nothing of a run
// behind: the namespace and everything under it go.
func TestStageCloseRemovesNamespace(t *testing.T) {
	connect := zktest.StartServer(t).ConnectString()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st := newStage(connect, nil, "stagetest")
	clients, err := connectAll(ctx, 2, func(ctx context.Context) (*framework.Client, error) {
		return newClient(ctx, connect, st.Namespace())
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := clients[0].Create(ctx, "/a/b", []byte("x"), framework.CreatingParentsIfNeeded()); err != nil {
		t.Fatal(err)
	}
	root := clients[1].UsingNamespace("")
	if stat, err := root.Exists(ctx, "/"+st.Namespace()+"/a/b"); err != nil || stat == nil {
		t.Fatalf("Exists before Close = %v, %v; want the node", stat, err)
	}
	for _, c := range clients {
		c.Close()
	}

	st.Close()

	c, err := framework.NewClient(connect, retry.OneTime{Sleep: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if stat, err := c.Exists(ctx, "/"+st.Namespace()); err != nil || stat != nil {
		t.Errorf("Exists after Close = %v, %v; want the namespace gone", stat, err)
	}
}
