package framework

import "github.com/go-zookeeper/zk"

// ACLProvider chooses the ACL of nodes the client creates without an explicit WithACL,
// including parents made by CreatingParentsIfNeeded, as Curator's ACLProvider.
type ACLProvider interface {
	// DefaultACL is the ACL used when ACLForPath has none.
	DefaultACL() []zk.ACL
	// ACLForPath returns the ACL for the node at path (the full path, namespace
	// included, without the connect string's chroot), or nil to use DefaultACL.
	ACLForPath(path string) []zk.ACL
}

// openACLProvider gives every node zk.WorldACL(zk.PermAll), as Curator's default.
type openACLProvider struct{}

func (openACLProvider) DefaultACL() []zk.ACL       { return zk.WorldACL(zk.PermAll) }
func (openACLProvider) ACLForPath(string) []zk.ACL { return nil }

// aclFor resolves the ACL for a node created at the full path fullPath; the
// provider sees it without the chroot, as Curator's does.
func (k *core) aclFor(fullPath string) []zk.ACL {
	if acl := k.cfg.aclProvider.ACLForPath(k.unchrooted(fullPath)); len(acl) > 0 {
		return acl
	}
	if acl := k.cfg.aclProvider.DefaultACL(); len(acl) > 0 {
		return acl
	}
	return zk.WorldACL(zk.PermAll)
}
