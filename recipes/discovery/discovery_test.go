package discovery_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/discovery"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

func TestConstructorsRefuseBadArguments(t *testing.T) {
	_, c, _ := serve(t)
	for name, err := range map[string]error{
		"nil client": func() error { _, err := discovery.NewServiceDiscovery[meta](nil, "/s"); return err }(),
		"root":       func() error { _, err := discovery.NewServiceDiscovery[meta](c, "/"); return err }(),
		"bad path":   func() error { _, err := discovery.NewServiceDiscovery[meta](c, "s"); return err }(),
		"interval": func() error {
			_, err := discovery.NewServiceDiscovery[meta](c, "/s", discovery.WithRetryEvery(0))
			return err
		}(),
		"nil option": func() error { _, err := discovery.NewServiceDiscovery[meta](c, "/s", nil); return err }(),
	} {
		if !errors.Is(err, discovery.ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", name, err)
		}
	}
	d := started(t, c)
	ctx := zktest.TestContext(t)
	for _, bad := range []discovery.ServiceInstance[meta]{instance("a/b", "1", 1), instance("a", "", 1), instance("a", "1", 70000)} {
		if err := d.RegisterService(ctx, bad); !errors.Is(err, discovery.ErrInvalidArgument) {
			t.Errorf("RegisterService(%s/%s): %v", bad.Name, bad.ID, err)
		}
	}
	for name, opt := range map[string]discovery.ProviderOption[meta]{
		"down timeout 0": discovery.WithDownInstancePolicy[meta](0, 2),
		"nil option":     nil,
		"nil filter":     discovery.WithFilter[meta](nil),
		"nil strategy":   discovery.WithStrategy[meta](nil),
	} {
		if _, err := d.NewServiceProvider("a", opt); !errors.Is(err, discovery.ErrInvalidArgument) {
			t.Errorf("provider with %s: %v, want ErrInvalidArgument", name, err)
		}
	}
	if err := d.Start(); !errors.Is(err, discovery.ErrAlreadyStarted) {
		t.Errorf("second Start: %v", err)
	}
	zktest.Must(t, d.Close(ctx))
	zktest.Must(t, d.Close(ctx))
	if err := d.RegisterService(ctx, instance("a", "1", 1)); !errors.Is(err, discovery.ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}

// Each service type gets Curator's node mode; queries read them back; a
// Java-style node already at the path is deleted and created again (a new
// czxid); unregister and Close delete the nodes.
func TestRegisterQueryUnregister(t *testing.T) {
	_, c, _ := serve(t)
	ctx := zktest.TestContext(t)
	d := started(t, c)

	dyn, seq, st := instance("api", "d", 1), instance("api", "s", 2), instance("api", "t", 3)
	seq.ServiceType, st.ServiceType = discovery.DynamicSequential, discovery.Static
	_, err := c.Create(ctx, "/services/api/d", []byte("stale"), framework.CreatingParentsIfNeeded())
	zktest.Must(t, err)
	before, err := c.Exists(ctx, "/services/api/d")
	zktest.Must(t, err)
	for _, i := range []discovery.ServiceInstance[meta]{dyn, seq, st} {
		zktest.Must(t, d.RegisterService(ctx, i))
		if !d.IsRegistered(i.ID) {
			t.Errorf("%s not reported registered", i.ID)
		}
	}
	after, err := c.Exists(ctx, "/services/api/d")
	zktest.Must(t, err)
	if after.Czxid == before.Czxid || after.EphemeralOwner != c.SessionID() {
		t.Fatalf("the node there was not created again as this session's: before %+v after %+v", before, after)
	}
	kids, _, err := c.Children(ctx, "/services/api")
	zktest.Must(t, err)
	var seqNode string
	for _, k := range kids {
		if strings.HasPrefix(k, "s") && len(k) == 11 {
			seqNode = k
		}
	}
	if len(kids) != 3 || seqNode == "" {
		t.Fatalf("children %v", kids)
	}
	stat, err := c.Exists(ctx, "/services/api/t")
	zktest.Must(t, err)
	if stat.EphemeralOwner != 0 {
		t.Fatal("a STATIC instance in an ephemeral node")
	}
	names, err := d.QueryForNames(ctx)
	zktest.Must(t, err)
	if len(names) != 1 || names[0] != "api" {
		t.Fatalf("names %v", names)
	}
	got, err := d.QueryForInstances(ctx, "api")
	zktest.Must(t, err)
	if len(got) != 3 || got[0].ID != "d" || got[0].Payload.Zone != "a" || got[1].ID != "s" || got[2].ServiceType != discovery.Static {
		t.Fatalf("instances %+v", got)
	}
	one, ok, err := d.QueryForInstance(ctx, "api", "t")
	zktest.Must(t, err)
	if !ok || *one.Port != 3 {
		t.Fatalf("instance t: %+v %v", one, ok)
	}
	dyn.Payload = &meta{Zone: "b"}
	zktest.Must(t, d.UpdateService(ctx, dyn))
	one, _, err = d.QueryForInstance(ctx, "api", "d")
	zktest.Must(t, err)
	if one.Payload.Zone != "b" {
		t.Fatalf("update not written: %+v", one.Payload)
	}
	if err := d.UpdateService(ctx, instance("api", "zz", 1)); !errors.Is(err, discovery.ErrNotRegistered) {
		t.Fatalf("update of an unknown instance: %v", err)
	}
	zktest.Must(t, d.UnregisterService(ctx, seq))
	if _, err := c.Exists(ctx, "/services/api/"+seqNode); err != nil {
		t.Fatal(err)
	} else if stat, _ := c.Exists(ctx, "/services/api/"+seqNode); stat != nil {
		t.Fatal("the sequential node outlived its unregister")
	}
	zktest.Must(t, d.Close(ctx))
	kids, _, err = c.Children(ctx, "/services/api")
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		t.Fatal(err)
	}
	if len(kids) != 0 {
		t.Fatalf("Close left %v", kids)
	}
}

// A change to registrations before Start is ErrNotStarted, whose message
// says what to do, as the framework's does.
func TestChangesBeforeStartAreErrNotStarted(t *testing.T) {
	_, c, _ := serve(t)
	d, err := discovery.NewServiceDiscovery[meta](c, "/services")
	zktest.Must(t, err)
	ctx := zktest.TestContext(t)
	i := instance("api", "a", 1)
	for name, err := range map[string]error{
		"RegisterService":   d.RegisterService(ctx, i),
		"UpdateService":     d.UpdateService(ctx, i),
		"UnregisterService": d.UnregisterService(ctx, i),
	} {
		if !errors.Is(err, discovery.ErrNotStarted) || !strings.Contains(err.Error(), "(call Start first)") {
			t.Errorf("%s before Start: %v, want ErrNotStarted saying to call Start first", name, err)
		}
	}
	if stat, err := c.Exists(ctx, "/services/api/a"); err != nil || stat != nil {
		t.Fatalf("a node before Start: %+v %v", stat, err)
	}
	zktest.Must(t, d.Close(ctx))
}
