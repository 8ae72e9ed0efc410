package locks_test

import (
	"reflect"
	"testing"

	"github.com/zkcurator/zkcurator/recipes/locks"
)

func TestSortedContendersOrdersSequencesAsNumbers(t *testing.T) {
	children := []string{
		"_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000010",
		"holder",
		"_c_11111111-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000002",
		"lock-0000000001",
		"_c_22222222-9423-4e0c-a7b5-9f819e3ec2e1-lock--2147483647",
		"_c_33333333-9423-4e0c-a7b5-9f819e3ec2e1-lock--2147483648",
		"unrelated",
	}
	got := locks.SortedContenders(children, "lock-", locks.StandardFixForSorting)
	want := []string{
		"_c_33333333-9423-4e0c-a7b5-9f819e3ec2e1-lock--2147483648",
		"_c_22222222-9423-4e0c-a7b5-9f819e3ec2e1-lock--2147483647",
		"lock-0000000001",
		"_c_11111111-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000002",
		"_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000010",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SortedContenders =\n%v\nwant\n%v", got, want)
	}
	if got := locks.StandardFixForSorting("_c_x-__READ__0000000004", "lock-"); got != "_c_x-__READ__0000000004" {
		t.Fatalf("a name without the lock name must come back unchanged, got %q", got)
	}
}
