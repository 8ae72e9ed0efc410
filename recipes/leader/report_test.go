package leader_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/recipes/leader"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// An error a LeadFunc returns has no caller: with no logger set it reaches
// the client's ListenErrors, naming the election.
func TestLeadFuncErrorReachesListenErrors(t *testing.T) {
	c := zkclient.New(t, shared.Server(t).ConnectString())
	errs := make(chan error, 8)
	defer c.ListenErrors(func(err error) {
		select {
		case errs <- err:
		default:
		}
	})()
	boom := errors.New("boom")
	dir := "/" + t.Name()
	s := newSelector(t, c, dir, "a", func(context.Context, leader.Term) error { return boom })
	zktest.Must(t, s.Start())
	defer s.Close(context.Background())
	select {
	case err := <-errs:
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), dir) {
			t.Fatalf("reported %v; want the LeadFunc's error naming %s", err, dir)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the LeadFunc's error was not reported")
	}
}
