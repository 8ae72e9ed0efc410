package locks_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/zkcurator/zkcurator/recipes/locks"
)

func TestSortedContendersOrdersSequencesAsNumbers(t *testing.T) {
	children := []string{
		"_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000010",
		"holder",
		"_c_11111111-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000002",
		"lock-0000000001",
		"unrelated",
		"_c_44444444-9423-4e0c-a7b5-9f819e3ec2e1-lock-u0000000007",
		locks.UnfairHolderNodeName,
		"_c_55555555-9423-4e0c-a7b5-9f819e3ec2e1-lock-u0000000003",
	}
	got := locks.SortedContenders(children, "lock-", locks.StandardFixForSorting)
	want := []string{
		locks.UnfairHolderNodeName, // first, as in Curator's text order: fair contenders wait for it
		"lock-0000000001",
		"_c_11111111-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000002",
		"_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000010",
		"_c_55555555-9423-4e0c-a7b5-9f819e3ec2e1-lock-u0000000003", // unfair contenders after every fair one
		"_c_44444444-9423-4e0c-a7b5-9f819e3ec2e1-lock-u0000000007",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SortedContenders =\n%v\nwant\n%v", got, want)
	}
	if got := locks.StandardFixForSorting("_c_x-__READ__0000000004", "lock-"); got != "_c_x-__READ__0000000004" {
		t.Fatalf("a name without the lock name must come back unchanged, got %q", got)
	}
}

// ZooKeeper's sequence is the parent's 32-bit cversion: after 2147483647 it
// goes on at -2147483648, and after -1 at 0. Contenders on either side of a
// wrap keep their creation order (serial-number arithmetic, RFC 1982), so a
// newcomer past the wrap never sorts before the holder.
func TestSortedContendersKeepOrderAcrossTheSequenceWrap(t *testing.T) {
	seq := func(v int32) string { return fmt.Sprintf("_c_11111111-9423-4e0c-a7b5-9f819e3ec2e1-lock-%010d", v) }
	for _, tc := range []struct {
		name string
		want []int32 // creation order
	}{
		{"from positive to negative", []int32{2147483646, 2147483647, -2147483648, -2147483647}},
		{"from -1 to 0", []int32{-2, -1, 0, 1}},
		{"no wrap", []int32{-5, -4, 3, 7}},
		{"one before the wrap", []int32{2147483647, -2147483648, -2147483640, -2147483600}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := make([]string, len(tc.want))
			for i, v := range tc.want {
				want[i] = seq(v)
			}
			shuffled := slices.Clone(want)
			slices.Reverse(shuffled)
			shuffled[0], shuffled[len(shuffled)/2] = shuffled[len(shuffled)/2], shuffled[0]
			if got := locks.SortedContenders(shuffled, "lock-", locks.StandardFixForSorting); !reflect.DeepEqual(got, want) {
				t.Fatalf("SortedContenders =\n%v\nwant\n%v", got, want)
			}
		})
	}
}
