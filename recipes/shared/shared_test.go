package shared_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/shared"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Start writes the seed in Curator's encoding only when the node is missing.
func TestSharedCountSeedAndBytes(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	a, err := shared.NewSharedCount(c, "/shared/seed", 258)
	zktest.Must(t, err)
	zktest.Must(t, a.Start(ctx))
	defer a.Close()
	if err := a.Start(ctx); !errors.Is(err, shared.ErrAlreadyStarted) {
		t.Fatalf("second Start: %v, want ErrAlreadyStarted", err)
	}
	data, _, err := c.GetData(ctx, "/shared/seed")
	zktest.Must(t, err)
	if !bytes.Equal(data, []byte{0, 0, 1, 2}) {
		t.Fatalf("node data %x, want 00000102", data)
	}
	b, err := shared.NewSharedCount(zkclient.New(t, srv.ConnectString()), "/shared/seed", 7)
	zktest.Must(t, err)
	zktest.Must(t, b.Start(ctx))
	defer b.Close()
	if got := b.VersionedValue(); got.Value != 258 || got.Version != 0 {
		t.Fatalf("second count = %+v, want 258 at version 0", got)
	}
	zktest.Must(t, b.Set(ctx, -1))
	if !bytes.Equal(mustData(t, c, "/shared/seed"), []byte{0xff, 0xff, 0xff, 0xff}) {
		t.Fatal("Set(-1) did not write ffffffff")
	}
	v := <-a.Changes()
	if v.Value != -1 || v.Version != 1 || a.Count() != -1 {
		t.Fatalf("change %+v, Count %d; want -1 at version 1", v, a.Count())
	}
}

func mustData(t *testing.T, c *framework.Client, path string) []byte {
	t.Helper()
	data, _, err := c.GetData(zktest.TestContext(t), path)
	zktest.Must(t, err)
	return data
}

// TrySet applies on the current version and fails cleanly on a stale one,
// refreshing the value.
func TestSharedCountTrySet(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	a, err := shared.NewSharedCount(zkclient.New(t, srv.ConnectString()), "/shared/tryset", 0)
	zktest.Must(t, err)
	zktest.Must(t, a.Start(ctx))
	defer a.Close()
	b, err := shared.NewSharedCount(zkclient.New(t, srv.ConnectString()), "/shared/tryset", 0)
	zktest.Must(t, err)
	zktest.Must(t, b.Start(ctx))
	defer b.Close()

	stale := b.VersionedValue()
	ok, err := a.TrySet(ctx, 5, a.VersionedValue().Version)
	if err != nil || !ok {
		t.Fatalf("TrySet on the current version = %v, %v", ok, err)
	}
	ok, err = b.TrySet(ctx, 9, stale.Version)
	if err != nil || ok {
		t.Fatalf("TrySet on a stale version = %v, %v; want false, nil", ok, err)
	}
	if got := b.VersionedValue(); got.Value != 5 || got.Version != 1 {
		t.Fatalf("after a stale TrySet the value is %+v, want 5 at version 1", got)
	}
	ok, err = b.TrySet(ctx, 9, b.VersionedValue().Version)
	if err != nil || !ok {
		t.Fatalf("TrySet after refresh = %v, %v", ok, err)
	}
}

// Every value a SharedValue writes itself is delivered once, in order,
// although nobody read Changes while they were written.
func TestSharedValueChangesOrderedNeverDropped(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	s, err := shared.NewSharedValue(zkclient.New(t, srv.ConnectString()), "/shared/changes", []byte("seed"))
	zktest.Must(t, err)
	zktest.Must(t, s.Start(ctx))
	defer s.Close()
	const n = 40
	for i := 1; i <= n; i++ {
		zktest.Must(t, s.Set(ctx, []byte(fmt.Sprint(i))))
	}
	for i := 1; i <= n; i++ {
		select {
		case v := <-s.Changes():
			if v.Version != int32(i) || string(v.Value) != fmt.Sprint(i) {
				t.Fatalf("change %d = version %d %q", i, v.Version, v.Value)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("change %d never came", i)
		}
	}
	select {
	case v := <-s.Changes():
		t.Fatalf("unexpected change %+v", v)
	default:
	}
	zktest.Must(t, s.Close())
	if _, open := <-s.Changes(); open {
		t.Fatal("Changes still open after Close")
	}
}

// Another client's writes reach a watcher, in increasing versions, ending
// with the last write.
func TestSharedValueSeesOtherWriters(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	w, err := shared.NewSharedValue(zkclient.New(t, srv.ConnectString()), "/shared/others", nil)
	zktest.Must(t, err)
	zktest.Must(t, w.Start(ctx))
	defer w.Close()
	r, err := shared.NewSharedValue(zkclient.New(t, srv.ConnectString()), "/shared/others", nil)
	zktest.Must(t, err)
	zktest.Must(t, r.Start(ctx))
	defer r.Close()
	const n = 30
	for i := 1; i <= n; i++ {
		zktest.Must(t, w.Set(ctx, []byte(fmt.Sprint(i))))
	}
	last := int32(0)
	assertReaches(t, r, &last, n)
}

// assertReaches reads Changes until the version want arrives, checking that
// versions strictly increase from *last on.
func assertReaches(t *testing.T, s *shared.SharedValue, last *int32, want int32) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for *last < want {
		select {
		case v := <-s.Changes():
			if v.Version <= *last {
				t.Fatalf("version %d after %d: a value went back", v.Version, *last)
			}
			*last = v.Version
		case <-deadline:
			t.Fatalf("stuck at version %d, want %d", *last, want)
		}
	}
	if s.Value().Version < want {
		t.Fatalf("Value() at version %d, want %d", s.Value().Version, want)
	}
}

func TestSharedBadInput(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	if _, err := shared.NewSharedCount(nil, "/x", 0); !errors.Is(err, shared.ErrInvalidArgument) || !strings.Contains(err.Error(), "nil client") {
		t.Errorf("nil client: %v", err)
	}
	if _, err := shared.NewSharedValue(c, "/x/", nil); !errors.Is(err, shared.ErrInvalidArgument) || !errors.Is(err, framework.ErrInvalidPath) || !strings.Contains(err.Error(), `"/x/"`) {
		t.Errorf("bad path: %v", err)
	}
	// The root is refused as the other recipes refuse it.
	if _, err := shared.NewSharedCount(c, "/", 0); !errors.Is(err, shared.ErrInvalidArgument) || !strings.Contains(err.Error(), `"/"`) {
		t.Errorf("the root as the path: %v", err)
	}
	_, err := c.Create(ctx, "/shared-bad", []byte{1, 2, 3})
	zktest.Must(t, err)
	s, err := shared.NewSharedCount(c, "/shared-bad", 0)
	zktest.Must(t, err)
	if ok, err := s.TrySet(ctx, 1, 0); ok || !errors.Is(err, shared.ErrNotStarted) {
		t.Errorf("TrySet before Start: %v, %v", ok, err)
	}
	if err := s.Start(ctx); !errors.Is(err, shared.ErrBadValue) || !strings.Contains(err.Error(), "3 bytes") {
		t.Errorf("Start on 3 bytes: %v", err)
	}
	zktest.Must(t, s.Close())
	if err := s.Close(); err != nil {
		t.Errorf("a second Close: %v, want nil", err)
	}
	if err := s.Start(ctx); !errors.Is(err, shared.ErrClosed) {
		t.Errorf("Start after Close: %v", err)
	}
}

// A TrySet whose reply is lost is reported unknown and applied once.
func TestSharedCountTrySetLostReply(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	s, err := shared.NewSharedCount(zkclient.New(t, proxy.Addr()), "/shared/lost", 10)
	zktest.Must(t, err)
	zktest.Must(t, s.Start(ctx))
	defer s.Close()
	proxy.LoseNextReply(zktest.OpSetData)
	ok, err := s.TrySet(ctx, 11, s.VersionedValue().Version)
	if ok || !errors.Is(err, shared.ErrOutcomeUnknown) {
		t.Fatalf("TrySet with a lost reply = %v, %v; want ErrOutcomeUnknown", ok, err)
	}
	c := zkclient.New(t, srv.ConnectString())
	_, stat, err := c.GetData(ctx, "/shared/lost")
	zktest.Must(t, err)
	if stat.Version != 1 || !bytes.Equal(mustData(t, c, "/shared/lost"), []byte{0, 0, 0, 11}) {
		t.Fatalf("node at version %d with %x, want version 1 holding 11", stat.Version, mustData(t, c, "/shared/lost"))
	}
}

// A watcher whose session expires while another client writes catches up
// after it reconnects, never going back.
func TestSharedValueAcrossSessionExpiry(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	w, err := shared.NewSharedValue(zkclient.New(t, srv.ConnectString()), "/shared/expiry", nil)
	zktest.Must(t, err)
	zktest.Must(t, w.Start(ctx))
	defer w.Close()
	rc := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(1200*time.Millisecond))
	r, err := shared.NewSharedValue(rc, "/shared/expiry", nil)
	zktest.Must(t, err)
	zktest.Must(t, r.Start(ctx))
	defer r.Close()
	zktest.Must(t, w.Set(ctx, []byte("before")))
	last := int32(0)
	assertReaches(t, r, &last, 1)

	session := rc.SessionID()
	proxy.Pause()
	for i := 0; i < 5; i++ {
		zktest.Must(t, w.Set(ctx, []byte(fmt.Sprint("during ", i))))
	}
	zktest.Eventually(t, 10*time.Second, "the client gives up its session", func() bool {
		return rc.State() == framework.Lost
	})
	proxy.Resume()
	assertReaches(t, r, &last, 6)
	if rc.SessionID() == session {
		t.Fatal("the session was not replaced")
	}
	if got := string(r.Value().Value); got != "during 4" {
		t.Fatalf("value %q, want the last write", got)
	}
	zktest.Must(t, w.Set(ctx, []byte("after")))
	assertReaches(t, r, &last, 7)
}
