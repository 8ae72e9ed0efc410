package framework_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
)

func TestACLProvidersGiveCuratorsACLs(t *testing.T) {
	cases := []struct {
		name string
		p    framework.ACLProvider
		want []zk.ACL
	}{
		{"Open", framework.OpenACLProvider(), zk.WorldACL(zk.PermAll)},
		{"CreatorAll", framework.CreatorAllACLProvider(), []zk.ACL{{Perms: zk.PermAll, Scheme: "auth"}}},
		{"CreatorAllWorldRead", framework.CreatorAllWorldReadACLProvider(),
			[]zk.ACL{{Perms: zk.PermAll, Scheme: "auth"}, {Perms: zk.PermRead, Scheme: "world", ID: "anyone"}}},
		{"Digest", framework.DigestACLProvider("alice", "pw"), zk.DigestACL(zk.PermAll, "alice", "pw")},
		{"X509", framework.X509ACLProvider("CN=a", "CN=b"),
			[]zk.ACL{{Perms: zk.PermAll, Scheme: "x509", ID: "CN=a"}, {Perms: zk.PermAll, Scheme: "x509", ID: "CN=b"}}},
	}
	for _, tc := range cases {
		if got := tc.p.DefaultACL(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: DefaultACL = %v; want %v", tc.name, got, tc.want)
		}
		if got := tc.p.ACLForPath("/any"); got != nil {
			t.Errorf("%s: ACLForPath = %v; want nil (the default)", tc.name, got)
		}
	}
	if acl := framework.DigestACLProvider("alice", "pw").DefaultACL(); strings.Contains(acl[0].ID, "pw") {
		t.Errorf("digest ACL id %q holds the password", acl[0].ID)
	}
}

func TestACLProviderThatWouldLeaveNodesOpenIsRefused(t *testing.T) {
	for name, p := range map[string]framework.ACLProvider{
		"no subjects":   framework.X509ACLProvider(),
		"empty subject": framework.X509ACLProvider("CN=a", ""),
	} {
		_, err := framework.NewClient("127.0.0.1:2181", testPolicy, framework.WithACLProvider(p))
		if !errors.Is(err, framework.ErrInvalidArgument) {
			t.Errorf("%s: NewClient = %v; want ErrInvalidArgument", name, err)
		}
	}
}
