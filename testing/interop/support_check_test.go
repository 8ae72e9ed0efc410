package interop

import (
	"testing"
	"time"
)

// TestMaxConcurrent checks the overlap detector the exclusion checks rely on.
func TestMaxConcurrent(t *testing.T) {
	at := func(ms int) time.Time { return time.Unix(0, 0).Add(time.Duration(ms) * time.Millisecond) }
	tests := []struct {
		name  string
		holds []hold
		want  int
	}{
		{"none", nil, 0},
		{"one", []hold{{"a", at(0), at(10)}}, 1},
		{"back to back", []hold{{"b", at(10), at(20)}, {"a", at(0), at(10)}, {"c", at(21), at(30)}}, 1},
		{"overlap", []hold{{"a", at(0), at(10)}, {"b", at(9), at(20)}}, 2},
		{"nested", []hold{{"a", at(0), at(100)}, {"b", at(10), at(20)}, {"c", at(30), at(40)}}, 2},
		{"three at once", []hold{{"a", at(0), at(50)}, {"b", at(10), at(60)}, {"c", at(20), at(30)}, {"d", at(55), at(70)}}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, a, b := maxConcurrent(tt.holds)
			if got != tt.want {
				t.Fatalf("maxConcurrent = %d, want %d", got, tt.want)
			}
			if got > 1 && !(a.from.Before(b.to) && b.from.Before(a.to)) {
				t.Fatalf("reported holds %v and %v do not overlap", a, b)
			}
		})
	}
}
