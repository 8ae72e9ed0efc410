package discovery

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// ProviderStrategy picks one of a service's instances (already filtered), as
// Curator's ProviderStrategy. It must be safe for concurrent use.
type ProviderStrategy[T any] interface {
	// Instance picks one of instances; false when there is none.
	Instance(instances []ServiceInstance[T]) (ServiceInstance[T], bool)
}

// RoundRobin returns Curator's RoundRobinStrategy: the instances in turn.
func RoundRobin[T any]() ProviderStrategy[T] { return &roundRobin[T]{} }

type roundRobin[T any] struct{ next atomic.Uint64 }

func (r *roundRobin[T]) Instance(instances []ServiceInstance[T]) (ServiceInstance[T], bool) {
	if len(instances) == 0 {
		return ServiceInstance[T]{}, false
	}
	return instances[(r.next.Add(1)-1)%uint64(len(instances))], true
}

// Random returns Curator's RandomStrategy: any instance, uniformly.
func Random[T any]() ProviderStrategy[T] { return random[T]{} }

type random[T any] struct{}

func (random[T]) Instance(instances []ServiceInstance[T]) (ServiceInstance[T], bool) {
	if len(instances) == 0 {
		return ServiceInstance[T]{}, false
	}
	return instances[rand.IntN(len(instances))], true
}

// Sticky returns Curator's StickyStrategy: the instance master picked, for as
// long as it is among the instances (matched by name and id); then master
// picks again.
func Sticky[T any](master ProviderStrategy[T]) ProviderStrategy[T] {
	if master == nil {
		master = RoundRobin[T]()
	}
	return &sticky[T]{master: master}
}

type sticky[T any] struct {
	master ProviderStrategy[T]
	mu     sync.Mutex
	ours   string // key of the instance we stick to, "" for none
}

func (s *sticky[T]) Instance(instances []ServiceInstance[T]) (ServiceInstance[T], bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, i := range instances {
		if i.key() == s.ours {
			return i, true
		}
	}
	i, ok := s.master.Instance(instances)
	s.ours = ""
	if ok {
		s.ours = i.key()
	}
	return i, ok
}
