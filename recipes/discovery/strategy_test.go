package discovery_test

import (
	"testing"

	"github.com/zkcurator/zkcurator/recipes/discovery"
)

func ids(n ...string) []discovery.ServiceInstance[meta] {
	var out []discovery.ServiceInstance[meta]
	for _, id := range n {
		out = append(out, instance("api", id, 1))
	}
	return out
}

func TestStrategies(t *testing.T) {
	if _, ok := discovery.RoundRobin[meta]().Instance(nil); ok {
		t.Fatal("round robin picked from nothing")
	}
	rr := discovery.RoundRobin[meta]()
	var got string
	for range 5 {
		i, _ := rr.Instance(ids("a", "b", "c"))
		got += i.ID
	}
	if got != "abcab" {
		t.Fatalf("round robin picked %q", got)
	}
	seen := map[string]bool{}
	r := discovery.Random[meta]()
	for range 200 {
		i, _ := r.Instance(ids("a", "b"))
		seen[i.ID] = true
	}
	if len(seen) != 2 {
		t.Fatalf("random picked only %v in 200 tries", seen)
	}
	s := discovery.Sticky(discovery.RoundRobin[meta]())
	first, _ := s.Instance(ids("a", "b"))
	for range 3 {
		if i, _ := s.Instance(ids("a", "b")); i.ID != first.ID {
			t.Fatalf("sticky moved from %s to %s", first.ID, i.ID)
		}
	}
	if i, _ := s.Instance(ids("c", "d")); i.ID == first.ID {
		t.Fatal("sticky kept an instance that is gone")
	}
}
