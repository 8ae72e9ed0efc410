package main

import (
	"errors"
	"testing"
)

func TestFencedStore(t *testing.T) {
	s := &fencedStore{}
	for _, w := range []struct {
		token int64
		value string
		ok    bool
	}{
		{10, "a", true},
		{10, "a again", true}, // the same holder writes twice
		{12, "b", true},
		{10, "stale", false},
		{11, "stale too", false},
		{13, "c", true},
	} {
		err := s.Write(w.token, w.value)
		if w.ok != (err == nil) || (!w.ok && !errors.Is(err, errStaleToken)) {
			t.Errorf("Write(%d, %q) = %v, want ok=%t", w.token, w.value, err, w.ok)
		}
	}
	if got := s.Read(); got != "c" {
		t.Errorf("Read() = %q, want %q", got, "c")
	}
}
