package framework

import (
	"regexp"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"
)

// The ACL providers of Curator's common cases. Each gives one ACL to every
// node the client creates: recipes' nodes and the parents and containers
// made for them alike.

// OpenACLProvider gives every node all permissions for anyone (world:anyone),
// Curator's default and this package's.
func OpenACLProvider() ACLProvider { return openACLProvider{} }

// CreatorAllACL is all permissions for the identities of the session that
// creates the node (ZooKeeper's "auth" scheme: its digest users from
// WithAuth and its x509 subject from the TLS client certificate), as
// Curator's ZooDefs.Ids.CREATOR_ALL_ACL. A session with no identity cannot
// create a node with it (zk.ErrInvalidACL).
func CreatorAllACL() []zk.ACL {
	return []zk.ACL{{Perms: zk.PermAll, Scheme: "auth", ID: ""}}
}

// CreatorAllACLProvider gives every node CreatorAllACL: only the identities
// that created a node may read, change or delete it, or create children in
// it. The same identity on a new session (the same digest user, or a
// certificate with the same subject) keeps its rights.
func CreatorAllACLProvider() ACLProvider { return fixedACLProvider(CreatorAllACL()) }

// CreatorAllWorldReadACLProvider gives every node CreatorAllACL and read
// permission for anyone, so that other services may watch a lock or a
// leader but not change or delete it.
func CreatorAllWorldReadACLProvider() ACLProvider {
	return fixedACLProvider(append(CreatorAllACL(), zk.WorldACL(zk.PermRead)...))
}

// DigestACLProvider gives every node all permissions for the digest user
// with this password (ZooKeeper stores only its hash), whoever creates the
// node: the matching WithAuth("digest", "user:password") is needed to use
// it. The password itself is in no ACL, error or log.
func DigestACLProvider(user, password string) ACLProvider {
	return fixedACLProvider(zk.DigestACL(zk.PermAll, user, password))
}

// X509ACLProvider gives every node all permissions for the x509 identities
// named, certificate subjects as ZooKeeper's X509AuthenticationProvider
// writes them ("CN=orders,OU=payments,O=Example"), so that clients with those
// certificates share the nodes; CreatorAllACLProvider is the choice when
// only the creating certificate should.
func X509ACLProvider(subjects ...string) ACLProvider {
	acl := make([]zk.ACL, 0, len(subjects))
	for _, s := range subjects {
		acl = append(acl, zk.ACL{Perms: zk.PermAll, Scheme: "x509", ID: s})
	}
	return fixedACLProvider(acl)
}

// SASLACLProvider gives every node all permissions for the SASL identities
// named (ZooKeeper's "sasl" scheme), as Curator's new ACL(Perms.ALL, new
// Id("sasl", user)): the user of SASLDigest, or a Kerberos principal as the
// server names it. With the client's own user alone it is a creator-only ACL
// that holds across the user's sessions and clients; naming more users shares
// the nodes between services. NewClient refuses it with ErrInvalidArgument
// when no user, an empty user or one the server would reject is named.
func SASLACLProvider(users ...string) ACLProvider {
	acl := make([]zk.ACL, 0, len(users))
	for _, u := range users {
		acl = append(acl, zk.ACL{Perms: zk.PermAll, Scheme: "sasl", ID: u})
	}
	return fixedACLProvider(acl)
}

// saslACLIDForm is the form ZooKeeper's SASL provider (its KerberosName)
// accepts for an id with an '@': name[/host]@realm.
var saslACLIDForm = regexp.MustCompile(`^[^/@]*(/[^/@]*)?@[^/@]*$`)

// checkSASLACLID refuses a sasl ACL id the server would refuse (zk.ErrInvalidACL)
// or that no client can have.
func checkSASLACLID(id string) error {
	switch {
	case id == "":
		return invalidArg("ACL provider has a sasl entry with an empty user")
	case strings.Contains(id, "@") && !saslACLIDForm.MatchString(id):
		return invalidArg("ACL provider has sasl user %q, which ZooKeeper refuses: an id with '@' must read name[/host]@realm", id)
	}
	return nil
}

// fixedACLProvider gives every node the same ACL.
type fixedACLProvider []zk.ACL

func (p fixedACLProvider) DefaultACL() []zk.ACL       { return append([]zk.ACL(nil), p...) }
func (p fixedACLProvider) ACLForPath(string) []zk.ACL { return nil }

// checkACLProvider refuses a fixed provider with an empty ACL, an x509
// entry without a subject or a sasl entry without a valid user, which would
// leave nodes open or fail every create.
func checkACLProvider(p ACLProvider) error {
	fixed, ok := p.(fixedACLProvider)
	if !ok {
		return nil
	}
	if len(fixed) == 0 {
		return invalidArg("ACL provider has an empty ACL (X509ACLProvider and SASLACLProvider need at least one identity)")
	}
	if slices.ContainsFunc(fixed, func(a zk.ACL) bool { return a.Scheme == "x509" && a.ID == "" }) {
		return invalidArg("ACL provider has an x509 entry with an empty subject")
	}
	for _, a := range fixed {
		if a.Scheme != "sasl" {
			continue
		}
		if err := checkSASLACLID(a.ID); err != nil {
			return err
		}
	}
	return nil
}
