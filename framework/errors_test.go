package framework_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// prefixedOnce fails the test unless err names the package exactly once.
func prefixedOnce(t *testing.T, what string, err error) {
	t.Helper()
	if n := strings.Count(err.Error(), "framework:"); n != 1 {
		t.Errorf("%s: %q names the package %d times, want once", what, err, n)
	}
}

// An operation that finds no server says so: which servers it waited for and how
// long. At the connection timeout the error is a retryable connection loss, and the
// policy's clock has counted that wait (UntilElapsed 300ms allows no second one).
// A shorter ctx bounds the wait, and Close then returns promptly.
func TestNotConnectedError(t *testing.T) {
	// Each bound below sits between the promise and what a defect would cost
	// (a second wait of connTimeout, the whole connTimeout, a 5 s hold); a
	// longer connTimeout widens the gap a loaded machine may use.
	const connTimeout = 2 * time.Second
	addr := deadAddr(t)
	c := newUnstartedClientPolicy(t, addr, retry.UntilElapsed{MaxElapsed: 300 * time.Millisecond, Sleep: 10 * time.Millisecond},
		framework.WithConnectionTimeout(connTimeout))
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	began := time.Now()
	_, err := c.Exists(ctx, "/x")
	took := time.Since(began)
	if !errors.Is(err, framework.ErrNotConnected) || !errors.Is(err, zk.ErrConnectionClosed) || !retry.IsRetryable(err) {
		t.Fatalf("Exists = %v; want ErrNotConnected and a retryable zk.ErrConnectionClosed", err)
	}
	for _, want := range []string{addr, "waited " + connTimeout.String(), "after attempt 1 "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Exists = %q; want it to contain %q", err, want)
		}
	}
	prefixedOnce(t, "Exists", err)
	if took >= 2*connTimeout-100*time.Millisecond {
		t.Errorf("Exists took %v: the policy did not count the first wait for a connection", took)
	}

	// A ctx shorter than the connection timeout bounds the wait.
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	began = time.Now()
	_, err = c.Exists(short, "/x")
	if !errors.Is(err, framework.ErrNotConnected) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), addr) {
		t.Fatalf("Exists with a 200ms ctx = %v; want ErrNotConnected naming %s and the deadline", err, addr)
	}
	if took := time.Since(began); took > connTimeout*3/4 {
		t.Errorf("Exists with a 200ms ctx took %v", took)
	}
	err = c.BlockUntilConnected(short)
	if !errors.Is(err, framework.ErrNotConnected) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("BlockUntilConnected = %v; want ErrNotConnected and the deadline", err)
	}

	// A guaranteed delete left for the background holds Close for at most
	// min(5s, connection timeout).
	short, cancel = context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := c.Delete(short, "/x", framework.Guaranteed()); !errors.Is(err, framework.ErrNotConnected) {
		t.Fatalf("Delete = %v; want ErrNotConnected", err)
	}
	began = time.Now()
	if err := c.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	took = time.Since(began)
	t.Logf("Close took %v after a failed connection, with a guaranteed delete pending", took)
	if took > connTimeout+2*time.Second {
		t.Errorf("Close took %v after a failed connection", took)
	}
}

// A TTL create on a server without extended types names the setting it needs.
func TestTTLNotEnabled(t *testing.T) {
	c := newClient(t, sharedServer(t).ConnectString())
	ctx := testCtx(t)
	_, err := c.Create(ctx, testRoot(t), nil, framework.WithMode(framework.PersistentWithTTL), framework.WithTTL(time.Minute))
	if !errors.Is(err, framework.ErrTTLNotEnabled) || !strings.Contains(err.Error(), "zookeeper.extendedTypesEnabled=true") {
		t.Fatalf("TTL create = %v; want ErrTTLNotEnabled naming zookeeper.extendedTypesEnabled=true", err)
	}
	prefixedOnce(t, "TTL create", err)
	if st, err := c.Exists(ctx, testRoot(t)); err != nil || st != nil {
		t.Fatalf("Exists = %v, %v; want no node", st, err)
	}
}

// Every operation of a closed client (and of its namespace views) returns ErrClosed,
// naming the package once; Close again returns nil.
func TestClosedClient(t *testing.T) {
	c := newClient(t, sharedServer(t).ConnectString(), framework.WithNamespace("app"))
	if err := c.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	ctx := testCtx(t)
	for _, view := range []*framework.Client{c, c.UsingNamespace("other"), c.UsingNamespace("")} {
		ops := map[string]func() error{
			"Start":               view.Start,
			"BlockUntilConnected": func() error { return view.BlockUntilConnected(ctx) },
			"RetryLoop":           func() error { return view.RetryLoop(ctx, func(context.Context) error { return nil }) },
			"Create":              func() error { _, err := view.Create(ctx, "/x", nil); return err },
			"Delete":              func() error { return view.Delete(ctx, "/x", framework.Guaranteed()) },
			"Exists":              func() error { _, err := view.Exists(ctx, "/x"); return err },
			"ExistsW":             func() error { _, _, err := view.ExistsW(ctx, "/x"); return err },
			"GetData":             func() error { _, _, err := view.GetData(ctx, "/x"); return err },
			"GetDataW":            func() error { _, _, _, err := view.GetDataW(ctx, "/x"); return err },
			"SetData":             func() error { _, err := view.SetData(ctx, "/x", nil, -1); return err },
			"Children":            func() error { _, _, err := view.Children(ctx, "/x"); return err },
			"ChildrenW":           func() error { _, _, _, err := view.ChildrenW(ctx, "/x"); return err },
			"CreateContainers":    func() error { return view.CreateContainers(ctx, "/x") },
			"Transaction": func() error {
				_, err := view.Transaction(ctx, &zk.CreateRequest{Path: "/x"})
				return err
			},
			"TransactionOnce": func() error {
				_, err := view.TransactionOnce(ctx, &zk.CreateRequest{Path: "/x"})
				return err
			},
		}
		for name, op := range ops {
			err := op()
			if !errors.Is(err, framework.ErrClosed) {
				t.Errorf("%s in namespace %q after Close = %v, want ErrClosed", name, view.Namespace(), err)
				continue
			}
			prefixedOnce(t, name, err)
		}
		if err := view.Close(); err != nil {
			t.Errorf("Close again in namespace %q = %v, want nil", view.Namespace(), err)
		}
	}
}

// Errors wrapped on their way out name the package once, whatever they wrap.
func TestErrorsNamePackageOnce(t *testing.T) {
	c := newUnstartedClient(t, "127.0.0.1:1")
	ctx := testCtx(t)
	_, err := c.Transaction(ctx, &zk.CreateRequest{Path: "bad"})
	if !errors.Is(err, framework.ErrInvalidPath) {
		t.Fatalf("Transaction with a bad path = %v, want ErrInvalidPath", err)
	}
	prefixedOnce(t, "Transaction with a bad path", err)
	_, err = c.Transaction(ctx, &zk.CreateRequest{Path: "/x"})
	if !errors.Is(err, framework.ErrNotStarted) {
		t.Fatalf("Transaction before Start = %v, want ErrNotStarted", err)
	}
	prefixedOnce(t, "Transaction before Start", err)
	_, err = c.UsingNamespace("/bad").Exists(ctx, "/x")
	if !errors.Is(err, framework.ErrInvalidArgument) {
		t.Fatalf("Exists in an invalid namespace = %v, want ErrInvalidArgument", err)
	}
	prefixedOnce(t, "Exists in an invalid namespace", err)
}

// Close is bounded while the server is silent: go-zookeeper's own wait for the
// reply to closeSession (a second), not its read deadline (two thirds of the
// 20s session here).
func TestCloseBoundedWhileServerSilent(t *testing.T) {
	srv := zktest.StartServer(t, zktest.WithTickTime(time.Second))
	p := zktest.StartProxy(t, srv.ConnectString())
	c := newClient(t, p.Addr(), framework.WithSessionTimeout(20*time.Second))
	p.Pause()
	defer p.Resume()
	began := time.Now()
	if err := c.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	took := time.Since(began)
	t.Logf("Close with the server silent took %v", took)
	if took > 5*time.Second {
		t.Fatalf("Close with the server silent took %v", took)
	}
}

// An operation under way when Close begins returns ErrClosed too (here a read held
// by a silent server, which go-zookeeper fails as it closes).
func TestOperationUnderWayAtClose(t *testing.T) {
	p := zktest.StartProxy(t, sharedServer(t).ConnectString())
	c := newClient(t, p.Addr(), framework.WithSessionTimeout(4*time.Second))
	ctx := testCtx(t)
	p.Pause()
	defer p.Resume()
	p.ResetCounts()
	done := make(chan error, 1)
	go func() {
		_, _, err := c.GetData(ctx, "/x")
		done <- err
	}()
	eventually(t, "the read to reach the server", func() bool { return p.RequestCount(zktest.OpGetData) == 1 })
	if err := c.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, framework.ErrClosed) {
			t.Fatalf("GetData under way at Close = %v, want ErrClosed", err)
		}
		prefixedOnce(t, "GetData under way at Close", err)
	case <-time.After(testWait):
		t.Fatal("GetData did not return after Close")
	}
}
