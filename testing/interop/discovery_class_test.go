package interop

import (
	"errors"
	"testing"
	"time"
)

// Curator reads a payload by its "@class" and checks it against its own
// payload class: one instance whose payload has no class, or another one,
// fails Curator's queryForInstances for the whole service, and the service
// reads again once that instance is gone (the warning in docs/interop.md and
// the package doc).
func TestDiscoveryCuratorFailsOnAPayloadOfAnotherClass(t *testing.T) {
	srv := startZooKeeper(t)
	ctx := testContext(t, 90*time.Second)
	_, d := goDiscovery(t, srv.ConnectString())
	good := discoverySpecs[0].goInstance(t)
	if err := d.RegisterService(ctx, good); err != nil {
		t.Fatal(err)
	}
	java := StartHelper(t, srv.ConnectString())
	mustDo(t, ctx, java, "discovery.start", "j", "/services")
	for _, class := range []string{"", "java.lang.String", "com.example.NotOnTheClassPath"} {
		bad := discoverySpecs[0].goInstance(t)
		bad.ID, bad.PayloadClass = "bad", class
		if err := d.RegisterService(ctx, bad); err != nil {
			t.Fatal(err)
		}
		_, err := java.Do(ctx, kindInstances, "discovery.query", "j", good.Name)
		if !errors.Is(err, ErrCommandFailed) {
			t.Errorf("payload class %q: Curator's queryForInstances: %v, want a failure", class, err)
		} else {
			t.Logf("payload class %q: %v", class, err)
		}
		if err := d.UnregisterService(ctx, bad); err != nil {
			t.Fatal(err)
		}
		e, err := java.Do(ctx, kindInstances, "discovery.query", "j", good.Name)
		if err != nil {
			t.Fatalf("after the payload of class %q is gone: %v", class, err)
		}
		if read := describedList(t, e.Field(0)); len(read) != 1 || read[0].ID != good.ID {
			t.Fatalf("after the payload of class %q is gone Curator read %+v", class, read)
		}
	}
}
