package discovery_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/zkcurator/zkcurator/recipes/discovery"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// Curator 5.4's JsonInstanceSerializer wrote this (compatible mode, a
// Spring Cloud payload); it is the format this package must write.
const curatorJSON = `{"name":"api","id":"i-1","address":"10.0.0.1","port":8080,"sslPort":null,` +
	`"payload":{"@class":"org.springframework.cloud.zookeeper.discovery.ZookeeperInstance","id":"api","name":"api","metadata":{"k":"<v>"}},` +
	`"registrationTimeUTC":1700000000123,"serviceType":"DYNAMIC",` +
	`"uriSpec":{"parts":[{"value":"scheme","variable":true},{"value":"://","variable":false},{"value":"address","variable":true},{"value":":","variable":false},{"value":"port","variable":true}]}}`

func TestJSONRoundTripsCuratorsBytes(t *testing.T) {
	var raw discovery.ServiceInstance[json.RawMessage]
	zktest.Must(t, json.Unmarshal([]byte(curatorJSON), &raw))
	out, err := raw.MarshalJSON()
	zktest.Must(t, err)
	if string(out) != curatorJSON {
		t.Fatalf("raw payload:\n got %s\nwant %s", out, curatorJSON)
	}
	type zi struct {
		ID       string            `json:"id"`
		Name     string            `json:"name"`
		Metadata map[string]string `json:"metadata"`
	}
	var typed discovery.ServiceInstance[zi]
	zktest.Must(t, json.Unmarshal([]byte(curatorJSON), &typed))
	if typed.PayloadClass != "org.springframework.cloud.zookeeper.discovery.ZookeeperInstance" || typed.Payload.Metadata["k"] != "<v>" {
		t.Fatalf("typed payload %+v class %q", typed.Payload, typed.PayloadClass)
	}
	if typed.SSLPort != nil || *typed.Port != 8080 || typed.ServiceType != discovery.Dynamic || !typed.IsEnabled() || typed.Enabled != nil {
		t.Fatalf("fields %+v", typed)
	}
	out, err = typed.MarshalJSON()
	zktest.Must(t, err)
	if string(out) != curatorJSON {
		t.Fatalf("typed payload:\n got %s\nwant %s", out, curatorJSON)
	}
}

func TestJSONDefaultsAndUnknownFields(t *testing.T) {
	var i discovery.ServiceInstance[meta]
	zktest.Must(t, json.Unmarshal([]byte(`{"name":"a","id":"b","extra":{"x":1},"payload":null}`), &i))
	if i.ServiceType != discovery.Dynamic || !i.IsEnabled() || i.Payload != nil || i.Address != "" {
		t.Fatalf("defaults: %+v", i)
	}
	zktest.Must(t, json.Unmarshal([]byte(`{"name":"a","id":"b","enabled":false,"serviceType":"STATIC"}`), &i))
	if i.IsEnabled() || i.ServiceType != discovery.Static {
		t.Fatalf("explicit: %+v", i)
	}
	out, err := i.MarshalJSON()
	zktest.Must(t, err)
	want := `{"name":"a","id":"b","address":null,"port":null,"sslPort":null,"payload":null,"registrationTimeUTC":0,"serviceType":"STATIC","uriSpec":null,"enabled":false}`
	if string(out) != want {
		t.Fatalf("got %s\nwant %s", out, want)
	}
	if err := json.Unmarshal([]byte(`{"name":1}`), &i); !errors.Is(err, discovery.ErrBadInstance) {
		t.Fatalf("bad data: %v", err)
	}
}

func TestJSONPayloadClassIsWritten(t *testing.T) {
	i := discovery.ServiceInstance[meta]{Name: "a", ID: "b", Payload: &meta{Zone: "z"}, PayloadClass: "com.example.Meta", ServiceType: discovery.Dynamic}
	out, err := i.MarshalJSON()
	zktest.Must(t, err)
	want := `{"name":"a","id":"b","address":null,"port":null,"sslPort":null,"payload":{"@class":"com.example.Meta","zone":"z"},"registrationTimeUTC":0,"serviceType":"DYNAMIC","uriSpec":null}`
	if string(out) != want {
		t.Fatalf("got %s\nwant %s", out, want)
	}
	s := discovery.ServiceInstance[string]{Name: "a", ID: "b", Payload: ptr("x"), PayloadClass: "java.lang.String"}
	out, err = s.MarshalJSON()
	zktest.Must(t, err)
	var back discovery.ServiceInstance[string]
	zktest.Must(t, json.Unmarshal(out, &back))
	if *back.Payload != "x" || back.PayloadClass != "java.lang.String" {
		t.Fatalf("wrapped scalar %s read as %+v", out, back)
	}
}

func ptr[T any](v T) *T { return &v }

func TestURISpec(t *testing.T) {
	u, err := discovery.ParseURISpec("{scheme}://{address}:{ port }/x/[{id}]{[}lit{]}")
	zktest.Must(t, err)
	i := discovery.ServiceInstance[meta]{Name: "n", ID: "7", Address: "h", Port: ptr(80), URISpec: u, ServiceType: discovery.DynamicSequential}
	if got, want := i.BuildURI(nil), "http://h:80/x/[7]{lit}"; got != want {
		t.Fatalf("BuildURI %q, want %q", got, want)
	}
	i.SSLPort = ptr(443)
	u2, _ := discovery.ParseURISpec("{scheme}://{address}:{ssl-port}/{service-type}/{nope}{who}")
	i.URISpec = u2
	if got, want := i.BuildURI(map[string]any{"who": "me"}), "https://h:443/dynamic_sequential/me"; got != want {
		t.Fatalf("BuildURI %q, want %q", got, want)
	}
	for _, bad := range []string{"{a", "a}", "{{a}}"} {
		if _, err := discovery.ParseURISpec(bad); !errors.Is(err, discovery.ErrInvalidArgument) {
			t.Errorf("ParseURISpec(%q): %v", bad, err)
		}
	}
}
