package discovery_test

import (
	"testing"

	"github.com/zkcurator/zkcurator/recipes/discovery"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// Code written against the former names still compiles and behaves: the
// deprecated UriSpec field, when set, is written and built in place of
// URISpec, and a read fills URISpec.
func TestFormerURISpecNamesStillWork(t *testing.T) {
	var u *discovery.UriSpec
	u, err := discovery.ParseUriSpec("{scheme}://{address}:{port}")
	zktest.Must(t, err)
	var parts []discovery.UriPart = u.Parts
	if len(parts) != 5 {
		t.Fatalf("parts %+v", parts)
	}
	old := discovery.ServiceInstance[meta]{Name: "n", ID: "1", Address: "h", Port: ptr(80), ServiceType: discovery.Dynamic}
	old.UriSpec = u
	neu := old
	neu.UriSpec, neu.URISpec = nil, u
	if got, want := old.BuildURI(nil), "http://h:80"; got != want {
		t.Fatalf("BuildURI with the former field %q, want %q", got, want)
	}
	a, err := old.MarshalJSON()
	zktest.Must(t, err)
	b, err := neu.MarshalJSON()
	zktest.Must(t, err)
	if string(a) != string(b) {
		t.Fatalf("the former field writes\n%s\nthe new one\n%s", a, b)
	}
	var back discovery.ServiceInstance[meta]
	zktest.Must(t, back.UnmarshalJSON(a))
	if back.URISpec == nil || back.UriSpec != nil || back.BuildURI(nil) != "http://h:80" {
		t.Fatalf("read back %+v", back)
	}

	// Code older than URISpec that sets the former field on a read
	// instance writes that spec.
	back.UriSpec, _ = discovery.ParseUriSpec("{scheme}://{address}")
	if got := back.BuildURI(nil); got != "http://h" {
		t.Fatalf("BuildURI after setting the former field on a read instance: %q", got)
	}
}
