package protection_test

import (
	"crypto/rand"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/zkcurator/zkcurator/protection"
)

// curatorNames were written by Curator 5.4.0 (ProtectedUtils.toProtectedZNode
// with UUID.randomUUID()) plus ZooKeeper's "%010d" sequence suffix; id and
// stripped are what Curator's extractProtectedId and normalize returned.
var curatorNames = []struct {
	name, id, stripped string
	seq                int64
}{
	{"_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000007", "53345f98-9423-4e0c-a7b5-9f819e3ec2e1", "lock-0000000007", 7},
	{"_c_6e40613b-7c1a-4f32-9e9e-dafd8ca3e1e1-lock-0000000007", "6e40613b-7c1a-4f32-9e9e-dafd8ca3e1e1", "lock-0000000007", 7},
	{"_c_1c38a25d-f7df-446f-9ee2-ee3c7d5f4264-__READ__0000000003", "1c38a25d-f7df-446f-9ee2-ee3c7d5f4264", "__READ__0000000003", 3},
	{"_c_01d6bea1-2b4e-46f0-b656-bbe410d3dedf-__WRIT__0000000012", "01d6bea1-2b4e-46f0-b656-bbe410d3dedf", "__WRIT__0000000012", 12},
	{"_c_ece77f52-4f34-4fc8-bc5b-7c02c99596b7-lease-2147483647", "ece77f52-4f34-4fc8-bc5b-7c02c99596b7", "lease-2147483647", 2147483647},
	{"_c_ae1af794-4fdb-430a-86ba-8eee39822f9a-member--000000001", "ae1af794-4fdb-430a-86ba-8eee39822f9a", "member--000000001", -1},
	{"_c_e65b5cad-7ebe-438a-a709-1a75771aee04-lease--2147483648", "e65b5cad-7ebe-438a-a709-1a75771aee04", "lease--2147483648", -2147483648},
	// Java's UUID.fromString accepts uppercase digits, so Curator does too.
	{"_c_53345f98-9423-4E0C-a7b5-9f819e3ec2e1-lock-0000000001", "53345f98-9423-4E0C-a7b5-9f819e3ec2e1", "lock-0000000001", 1},
}

func TestCuratorNames(t *testing.T) {
	for _, tc := range curatorNames {
		if !protection.IsProtected(tc.name) {
			t.Errorf("IsProtected(%q) = false, Curator says true", tc.name)
		}
		if id, ok := protection.ID(tc.name); !ok || id != tc.id {
			t.Errorf("ID(%q) = %q, %t; want %q, true", tc.name, id, ok, tc.id)
		}
		if got := protection.Strip(tc.name); got != tc.stripped {
			t.Errorf("Strip(%q) = %q, want %q", tc.name, got, tc.stripped)
		}
		if got := protection.Name(tc.id, tc.stripped); got != tc.name {
			t.Errorf("Name(%q, %q) = %q, want %q", tc.id, tc.stripped, got, tc.name)
		}
		if got, err := protection.Sequence(tc.name); err != nil || got != tc.seq {
			t.Errorf("Sequence(%q) = %d, %v; want %d", tc.name, got, err, tc.seq)
		}
	}
}

// TestCuratorRejects lists names that Curator 5.4.0's isProtectedZNode
// rejects; normalize returned them unchanged.
func TestCuratorRejects(t *testing.T) {
	for _, name := range []string{
		"",
		"_c_",
		"_c_x",
		"lock-0000000001",
		"_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-",  // 40 bytes: nothing after the prefix
		"_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1_x", // no '-' at index 39
		"_c_53345f98+9423-4e0c-a7b5-9f819e3ec2e1-x", // only three dashes in the id
		"c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-xx",
		"_C_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-x",
		"_c_53345f98-9423-4e0c-a7b5-9f819e3ec2eg-x", // 'g' is not hexadecimal
		"_c_0123456789abcdef0123456789abcdef-lock-0000000001",
	} {
		if protection.IsProtected(name) {
			t.Errorf("IsProtected(%q) = true, Curator says false", name)
		}
		if id, ok := protection.ID(name); ok || id != "" {
			t.Errorf("ID(%q) = %q, %t; want \"\", false", name, id, ok)
		}
		if got := protection.Strip(name); got != name {
			t.Errorf("Strip(%q) = %q, want it unchanged", name, got)
		}
	}
}

// TestNonCanonicalJavaUUIDs covers ids that Java 17's UUID.fromString parses
// although they are not canonical UUIDs (Curator 5.4.0 called these protected);
// zkcurator deliberately accepts only the canonical form.
func TestNonCanonicalJavaUUIDs(t *testing.T) {
	for _, name := range []string{
		"_c_0000000000-00-0000-0000-000000000000-x",
		"_c_+0000000-0000-0000-0000-000000000000-x",
		"_c_\uff10\uff10\uff10\uff10\uff10\uff10\uff10\uff10-9423-4e0c-a7b5-9f819e3ec2e1-x",
	} {
		if protection.IsProtected(name) {
			t.Errorf("IsProtected(%q) = true, want false for a non-canonical id", name)
		}
	}
}

func TestUnicodeNames(t *testing.T) {
	id := protection.NewID()
	for _, base := range []string{"élève", "ロック-", "🔒", "\x00", "\xff\xfe"} {
		name := protection.Name(id, base)
		if !protection.IsProtected(name) {
			t.Errorf("IsProtected(%q) = false", name)
		}
		if got := protection.Strip(name); got != base {
			t.Errorf("Strip(%q) = %q, want %q", name, got, base)
		}
	}
	// Curator 5.4.0 says "_c_<uuid>-élève" is protected and normalizes it to "élève".
	if got := protection.Strip("_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-élève"); got != "élève" {
		t.Errorf("Strip = %q, want %q", got, "élève")
	}
}

// goZookeeperName builds a name as go-zookeeper v1.0.4's
// CreateProtectedEphemeralSequential does: "_c_", 32 hex digits, "-", name.
func goZookeeperName(t *testing.T, base string) string {
	t.Helper()
	var guid [16]byte
	if _, err := rand.Read(guid[:]); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("_c_%x-%s", guid, base)
}

func TestGoZookeeperProtectedNamesAreNotCuratorProtected(t *testing.T) {
	for i := 0; i < 200; i++ {
		for _, name := range []string{
			goZookeeperName(t, "lock-0000000001"),
			goZookeeperName(t, "lock-"),
			goZookeeperName(t, ""),
		} {
			if protection.IsProtected(name) {
				t.Fatalf("IsProtected(%q) = true; go-zookeeper's format is not Curator's", name)
			}
			if got := protection.Strip(name); got != name {
				t.Fatalf("Strip(%q) = %q, want it unchanged", name, got)
			}
		}
	}
}

func TestNewID(t *testing.T) {
	seen := make(map[string]bool)
	for i := 0; i < 1000; i++ {
		id := protection.NewID()
		if len(id) != 36 || strings.ToLower(id) != id {
			t.Fatalf("NewID() = %q, want 36 lowercase characters", id)
		}
		u, err := uuid.Parse(id)
		if err != nil || u.Version() != 4 || u.Variant() != uuid.RFC4122 || u.String() != id {
			t.Fatalf("NewID() = %q: not a canonical random UUID (%v)", id, err)
		}
		if seen[id] {
			t.Fatalf("NewID() returned %q twice", id)
		}
		seen[id] = true
	}
}

func TestNameRoundTrip(t *testing.T) {
	for _, base := range []string{"lock-", "__READ__", "__WRIT__", "lease-", "x", "a/b"} {
		id := protection.NewID()
		name := protection.Name(id, base)
		if want := "_c_" + id + "-" + base; name != want {
			t.Errorf("Name(%q, %q) = %q, want %q", id, base, name, want)
		}
		if !protection.IsProtected(name) {
			t.Errorf("IsProtected(%q) = false", name)
		}
		if got, ok := protection.ID(name); !ok || got != id {
			t.Errorf("ID(%q) = %q, %t; want %q, true", name, got, ok, id)
		}
		if got := protection.Strip(name); got != base {
			t.Errorf("Strip(%q) = %q, want %q", name, got, base)
		}
	}
	if name := protection.Name(protection.NewID(), ""); protection.IsProtected(name) {
		t.Errorf("IsProtected(%q) = true; Curator requires a name after the prefix", name)
	}
}

func TestFind(t *testing.T) {
	id, other := protection.NewID(), protection.NewID()
	mine := protection.Name(id, "lock-0000000004")
	children := []string{
		"lock-0000000001",
		protection.Name(other, "lock-0000000002"),
		"_c_" + id, // no separator: not ours
		mine,
		protection.Name(id, "lock-0000000009"), // a later duplicate: Find returns the first
	}
	if got, ok := protection.Find(children, id); !ok || got != mine {
		t.Errorf("Find = %q, %t; want %q, true", got, ok, mine)
	}
	if got, ok := protection.Find(children[:3], id); ok || got != "" {
		t.Errorf("Find without our node = %q, %t; want \"\", false", got, ok)
	}
	if got, ok := protection.Find(children, id[:35]); ok {
		t.Errorf("Find with a truncated id = %q, want no match", got)
	}
	if got, ok := protection.Find(children, strings.ToUpper(id)); ok {
		t.Errorf("Find with the id in uppercase = %q; matching is exact, as in Curator", got)
	}
	if _, ok := protection.Find(nil, id); ok {
		t.Error("Find(nil) found a child")
	}
}
