package interop

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/discovery"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// Events of the discovery verbs (java/DiscoveryCommands.java).
const (
	kindInstances = "INSTANCES" // <base64 JSON list of described instances>
	kindProvided  = "PROVIDED"  // <base64 JSON list of described instances or nulls>
	kindJSON      = "JSON"      // <base64 of JsonInstanceSerializer's bytes>
)

// javaMeta is the helper's payload class, DiscoveryCommands$Meta.
const javaMeta = "DiscoveryCommands$Meta"

type meta struct {
	Zone string `json:"zone"`
}

// described is an instance as the helper describes what Curator read.
type described struct {
	Name, ID, Address   string
	Port, SSLPort       *int
	PayloadClass, Zone  *string
	RegistrationTimeUTC int64
	ServiceType         string
	URI                 string
	Enabled             bool
}

// spec is an instance for both languages: the Java helper's nine fields,
// and the same instance in Go.
type spec struct {
	name, id, address string
	port, sslPort     int // -1: null
	zone, uri         string
	regTime           int64
	serviceType       discovery.ServiceType
}

func (s spec) javaArgs() []string {
	opt := func(v string) string {
		if v == "" {
			return "-"
		}
		return v
	}
	optInt := func(v int) string {
		if v < 0 {
			return "-"
		}
		return strconv.Itoa(v)
	}
	return []string{s.name, s.id, s.address, optInt(s.port), optInt(s.sslPort), opt(s.zone), opt(s.uri),
		strconv.FormatInt(s.regTime, 10), string(s.serviceType)}
}

func (s spec) goInstance(t *testing.T) discovery.ServiceInstance[meta] {
	t.Helper()
	i := discovery.ServiceInstance[meta]{Name: s.name, ID: s.id, Address: s.address, RegistrationTimeUTC: s.regTime, ServiceType: s.serviceType}
	if s.port >= 0 {
		i.Port = &s.port
	}
	if s.sslPort >= 0 {
		i.SSLPort = &s.sslPort
	}
	if s.zone != "" {
		i.Payload, i.PayloadClass = &meta{Zone: s.zone}, javaMeta
	}
	if s.uri != "" {
		u, err := discovery.ParseURISpec(s.uri)
		if err != nil {
			t.Fatal(err)
		}
		i.URISpec = u
	}
	return i
}

// check compares what Curator read with the spec, field by field.
func (s spec) check(t *testing.T, d described) {
	t.Helper()
	wantURI := s.goInstance(t).BuildURI(nil)
	ptrInt := func(p *int) int {
		if p == nil {
			return -1
		}
		return *p
	}
	ptrStr := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	wantClass := ""
	if s.zone != "" {
		wantClass = javaMeta
	}
	if d.Name != s.name || d.ID != s.id || d.Address != s.address || ptrInt(d.Port) != s.port || ptrInt(d.SSLPort) != s.sslPort ||
		ptrStr(d.Zone) != s.zone || ptrStr(d.PayloadClass) != wantClass || d.RegistrationTimeUTC != s.regTime ||
		d.ServiceType != string(s.serviceType) || d.URI != wantURI || !d.Enabled {
		t.Errorf("Curator read %+v\nwant %+v (uri %q, class %q)", d, s, wantURI, wantClass)
	}
}

var discoverySpecs = []spec{
	{name: "api", id: "i-1", address: "10.0.0.1", port: 8080, sslPort: -1, zone: "eu-<1>&", uri: "{scheme}://{address}:{port}/x", regTime: 1700000000123, serviceType: discovery.Dynamic},
	{name: "api", id: "i-2", address: "10.0.0.2", port: 8081, sslPort: 8443, zone: "zoné", uri: "{scheme}://{address}:{ssl-port}/{name}/{id}[{service-type}]", regTime: 1700000000456, serviceType: discovery.Static},
	{name: "api", id: "i-3", address: "10.0.0.3", port: -1, sslPort: -1, regTime: 1, serviceType: discovery.Permanent},
}

// The JSON each side writes for the same instance is the same, byte for
// byte: field order, nulls, the payload's "@class", the uriSpec's parts,
// characters Go's encoder would escape.
func TestDiscoveryJSONByteForByte(t *testing.T) {
	srv := startZooKeeper(t)
	ctx := testContext(t, 60*time.Second)
	java := StartHelper(t, srv.ConnectString())
	specs := append(slices.Clone(discoverySpecs), spec{name: "api", id: "i-4", address: "h", port: 1, sslPort: -1, regTime: 2, serviceType: discovery.DynamicSequential})
	for _, s := range specs {
		e, err := java.Do(ctx, kindJSON, "discovery.serialize", s.javaArgs()...)
		if err != nil {
			t.Fatal(err)
		}
		want := decode64(t, e.Field(0))
		got, err := s.goInstance(t).MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s:\n Go   %s\n Java %s", s.id, got, want)
		}
	}
	// Curator's non-compatible mode adds "enabled"; so does Enabled.
	for _, enabled := range []bool{true, false} {
		s := discoverySpecs[0]
		e, err := java.Do(ctx, kindJSON, "discovery.serializeEnabled", append([]string{strconv.FormatBool(enabled)}, s.javaArgs()...)...)
		if err != nil {
			t.Fatal(err)
		}
		want := decode64(t, e.Field(0))
		i := s.goInstance(t)
		i.Enabled = &enabled
		got, err := i.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("enabled %v:\n Go   %s\n Java %s", enabled, got, want)
		}
	}
}

// Curator's ServiceDiscovery registers instances (with a payload class and
// a uriSpec); zkcurator reads them field by field, and writes back the bytes
// it read.
func TestDiscoveryGoReadsCuratorsInstances(t *testing.T) {
	srv := startZooKeeper(t)
	ctx := testContext(t, 60*time.Second)
	java := StartHelper(t, srv.ConnectString())
	mustDo(t, ctx, java, "discovery.start", "j", "/services")
	for _, s := range discoverySpecs {
		mustDo(t, ctx, java, "discovery.register", append([]string{"j"}, s.javaArgs()...)...)
	}
	c := newGoClient(t, srv.ConnectString())
	d, err := discovery.NewServiceDiscovery[meta](c, "/services")
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.QueryForInstances(ctx, "api")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(discoverySpecs) {
		t.Fatalf("zkcurator read %d instances, want %d", len(got), len(discoverySpecs))
	}
	for n, s := range discoverySpecs {
		g, w := got[n], s.goInstance(t)
		if g.ID != w.ID || g.Name != w.Name || g.Address != w.Address || fmt.Sprint(deref(g.Port)) != fmt.Sprint(deref(w.Port)) ||
			fmt.Sprint(deref(g.SSLPort)) != fmt.Sprint(deref(w.SSLPort)) || g.PayloadClass != w.PayloadClass ||
			fmt.Sprint(deref(g.Payload)) != fmt.Sprint(deref(w.Payload)) || g.RegistrationTimeUTC != w.RegistrationTimeUTC ||
			g.ServiceType != w.ServiceType || g.BuildURI(nil) != w.BuildURI(nil) || !g.IsEnabled() || g.Enabled != nil {
			t.Errorf("zkcurator read %+v\nwant %+v", g, w)
		}
		data, _, err := c.GetData(ctx, "/services/api/"+s.id)
		if err != nil {
			t.Fatal(err)
		}
		if again, _ := g.MarshalJSON(); string(again) != string(data) {
			t.Errorf("%s: zkcurator writes back\n %s\nCurator wrote\n %s", s.id, again, data)
		}
	}
	names, err := d.QueryForNames(ctx)
	if err != nil || !slices.Equal(names, []string{"api"}) {
		t.Fatalf("names %v, %v", names, err)
	}
}

// zkcurator registers instances; Curator's ServiceDiscovery returns them
// with payload, uriSpec and registration time intact, and its
// ServiceProvider hands them out.
func TestDiscoveryCuratorReadsGoInstances(t *testing.T) {
	srv := startZooKeeper(t)
	ctx := testContext(t, 60*time.Second)
	_, d := goDiscovery(t, srv.ConnectString())
	for _, s := range discoverySpecs {
		if err := d.RegisterService(ctx, s.goInstance(t)); err != nil {
			t.Fatal(err)
		}
	}
	java := StartHelper(t, srv.ConnectString())
	mustDo(t, ctx, java, "discovery.start", "j", "/services")
	e, err := java.Do(ctx, kindInstances, "discovery.query", "j", "api")
	if err != nil {
		t.Fatal(err)
	}
	read := describedList(t, e.Field(0))
	slices.SortFunc(read, func(a, b *described) int { return strings.Compare(a.ID, b.ID) })
	if len(read) != len(discoverySpecs) {
		t.Fatalf("Curator read %d instances, want %d", len(read), len(discoverySpecs))
	}
	for n, s := range discoverySpecs {
		s.check(t, *read[n])
	}
	e, err = java.Do(ctx, kindProvided, "discovery.provide", "j", "api", "6")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, p := range describedList(t, e.Field(0)) {
		if p == nil {
			t.Fatal("Curator's provider returned no instance")
		}
		seen[p.ID]++
	}
	if len(seen) != 3 || seen["i-1"] != 2 {
		t.Fatalf("Curator's round-robin provider handed out %v, want each of 3 twice", seen)
	}
}

// Both sides keep their registrations across a session expiry: each side's
// connection is cut past its session timeout, the server expires both
// sessions (their nodes go), and once connected again each registers again.
func TestDiscoveryBothRegisterAgainAfterSessionExpiry(t *testing.T) {
	srv := startZooKeeper(t)
	ctx := testContext(t, 90*time.Second)
	goProxy := zktest.StartProxy(t, srv.ConnectString())
	javaProxy := zktest.StartProxy(t, srv.ConnectString())
	admin := newGoClient(t, srv.ConnectString())
	c, d := goDiscovery(t, goProxy.Addr())
	goSpec, javaSpec := discoverySpecs[0], discoverySpecs[1]
	javaSpec.serviceType = discovery.Dynamic
	if err := d.RegisterService(ctx, goSpec.goInstance(t)); err != nil {
		t.Fatal(err)
	}
	java := StartHelper(t, javaProxy.Addr(), WithSessionTimeout(goSessionTimeout))
	mustDo(t, ctx, java, "discovery.start", "j", "/services")
	mustDo(t, ctx, java, "discovery.register", append([]string{"j"}, javaSpec.javaArgs()...)...)
	owners := func() map[string]int64 {
		m := map[string]int64{}
		for _, id := range []string{goSpec.id, javaSpec.id} {
			st, err := admin.Exists(ctx, "/services/api/"+id)
			if err != nil {
				t.Fatal(err)
			}
			if st != nil {
				m[id] = st.EphemeralOwner
			}
		}
		return m
	}
	before := owners()
	if len(before) != 2 {
		t.Fatalf("registered: %v", before)
	}
	goProxy.Pause()
	javaProxy.Pause()
	awaitCond(t, ctx, "the server expires both sessions", func() bool { return len(owners()) == 0 })
	goProxy.Resume()
	javaProxy.Resume()
	awaitCond(t, ctx, "both register again", func() bool { return len(owners()) == 2 })
	after := owners()
	for id, o := range after {
		if o == before[id] {
			t.Errorf("%s still owned by the expired session %x", id, o)
		}
	}
	if after[goSpec.id] != c.SessionID() || !d.IsRegistered(goSpec.id) {
		t.Errorf("the Go instance is owned by %x, the client's session is %x", after[goSpec.id], c.SessionID())
	}
	e, err := java.Do(ctx, kindInstances, "discovery.query", "j", "api")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(describedList(t, e.Field(0))); n != 2 {
		t.Fatalf("Curator reads %d instances after the expiry, want 2", n)
	}
}

// goDiscovery starts a zkcurator ServiceDiscovery at /services on a client
// of connect; both close with the test.
func goDiscovery(t *testing.T, connect string) (*framework.Client, *discovery.ServiceDiscovery[meta]) {
	t.Helper()
	c := newGoClient(t, connect)
	d, err := discovery.NewServiceDiscovery[meta](c, "/services")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close(context.Background()) })
	return c, d
}

func mustDo(t *testing.T, ctx context.Context, h *Helper, verb string, args ...string) {
	t.Helper()
	if _, err := h.Do(ctx, KindOK, verb, args...); err != nil {
		t.Fatal(err)
	}
}

// awaitCond polls cond every 50 ms until it holds, failing the test when
// ctx ends first.
func awaitCond(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("gave up waiting: %s", what)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func decode64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatalf("base64 %q: %v", s, err)
	}
	return b
}

func describedList(t *testing.T, field string) []*described {
	t.Helper()
	var out []*described
	if err := json.Unmarshal(decode64(t, field), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
