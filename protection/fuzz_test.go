package protection_test

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/zkcurator/zkcurator/protection"
)

// FuzzProtection feeds arbitrary names to every function and checks that none
// panics and that their answers agree with each other.
func FuzzProtection(f *testing.F) {
	for _, seed := range []string{
		"",
		"_",
		"_c_",
		"_c_-",
		"-",
		"0000000000",
		"-000000001",
		"-2147483648",
		"lock-0000000007",
		"_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000007",
		"_c_53345F98-9423-4E0C-A7B5-9F819E3EC2E1-__READ__0000000003",
		"_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-",
		"_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-élève-0000000012",
		"_c_0123456789abcdef0123456789abcdef-lock-0000000001",
		"_c_\uff10\uff10\uff10\uff10\uff10\uff10\uff10\uff10-9423-4e0c-a7b5-9f819e3ec2e1-x",
		"ロック-🔒-0000000001",
		"\xff\xfe\x00",
		strings.Repeat("_c_", 40),
		strings.Repeat("x", 4096) + "-0000000042",
	} {
		f.Add(seed, "53345f98-9423-4e0c-a7b5-9f819e3ec2e1")
	}
	f.Add("_c_x-y", "x")
	f.Add("_c_-lock", "")

	f.Fuzz(func(t *testing.T, name, id string) {
		protected := protection.IsProtected(name)
		gotID, ok := protection.ID(name)
		stripped := protection.Strip(name)
		if ok != protected {
			t.Fatalf("IsProtected(%q) = %t but ID ok = %t", name, protected, ok)
		}
		if protected {
			if len(gotID) != 36 || protection.Name(gotID, stripped) != name {
				t.Fatalf("protected %q: ID %q and Strip %q do not rebuild it", name, gotID, stripped)
			}
			if found, ok := protection.Find([]string{"other", name}, gotID); !ok || found != name {
				t.Fatalf("Find(%q) by its own id %q = %q, %t", name, gotID, found, ok)
			}
		} else if gotID != "" || stripped != name {
			t.Fatalf("unprotected %q: ID %q, Strip %q; want \"\" and the name", name, gotID, stripped)
		}

		wrapped := protection.Name(protection.NewID(), name)
		if got, want := protection.IsProtected(wrapped), name != ""; got != want {
			t.Fatalf("IsProtected(Name(NewID(), %q)) = %t, want %t", name, got, want)
		}
		if name != "" && protection.Strip(wrapped) != name {
			t.Fatalf("Strip(Name(NewID(), %q)) = %q", name, protection.Strip(wrapped))
		}

		found, ok := protection.Find([]string{name}, id)
		if want := strings.HasPrefix(name, protection.Prefix+id+"-"); ok != want || (ok && found != name) {
			t.Fatalf("Find([%q], %q) = %q, %t", name, id, found, ok)
		}

		seq, err := protection.Sequence(name)
		switch {
		case err != nil:
			if !errors.Is(err, protection.ErrNoSequence) || !strings.Contains(err.Error(), strconv.Quote(name)) {
				t.Fatalf("Sequence(%q) error %v: want ErrNoSequence naming the input", name, err)
			}
		case seq < math.MinInt32 || seq > math.MaxInt32:
			t.Fatalf("Sequence(%q) = %d, outside ZooKeeper's 32-bit counter", name, seq)
		case !strings.HasSuffix(name, fmt.Sprintf("%010d", seq)):
			t.Fatalf("Sequence(%q) = %d, but the name does not end in %010d", name, seq, seq)
		}
	})
}
