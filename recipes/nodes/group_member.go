package nodes

import (
	"context"
	"fmt"
	"strings"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/recipes/internal/lifecycle"
)

// GroupMember is one member of a group, as Curator's GroupMember: an
// ephemeral node named by the member's id under the membership path, kept
// by a PersistentNode, and a cache of the members' nodes. Go and Java
// members of one path see each other.
type GroupMember struct {
	c     *framework.Client
	group string
	id    string
	node  *PersistentNode
	cache *cache.PathChildrenCache
	life  lifecycle.Lifecycle
}

// NewGroupMember returns the member thisID of the group at membershipPath,
// with data. It makes no network call: a nil client, a bad path, or an id
// that is empty or not one path element is an error matching
// ErrInvalidArgument.
func NewGroupMember(c *framework.Client, membershipPath, thisID string, data []byte) (*GroupMember, error) {
	if err := validateTarget(c, membershipPath); err != nil {
		return nil, err
	}
	if thisID == "" || strings.Contains(thisID, "/") {
		return nil, fmt.Errorf("%w: member id %q is not one path element", ErrInvalidArgument, thisID)
	}
	nodePath := framework.JoinPath(membershipPath, thisID)
	if err := framework.ValidatePath(nodePath); err != nil {
		return nil, fmt.Errorf("%w: member id %q: %v", ErrInvalidArgument, thisID, err)
	}
	node, err := NewPersistentNode(c, nodePath, framework.Ephemeral, data)
	if err != nil {
		return nil, err
	}
	members, err := cache.NewPathChildrenCache(c, membershipPath)
	if err != nil {
		return nil, fmt.Errorf("nodes: group %s: %w", membershipPath, err)
	}
	return &GroupMember{c: c, group: membershipPath, id: thisID, node: node, cache: members, life: lifecycle.New(&lifeErrors)}, nil
}

// Start joins the group: it begins keeping the member's node, loads the
// members' cache and waits until the node has been created once. When it
// fails (ctx ended, or the client closed) the member is closed and its node,
// if made, deleted, within ctx: a delete that ctx cuts short goes on in the
// background. A second Start returns ErrAlreadyStarted.
func (g *GroupMember) Start(ctx context.Context) error {
	if err := g.life.Start(fmt.Sprintf("member %s of %s", g.id, g.group)); err != nil {
		return err
	}
	err := g.node.Start()
	if err == nil {
		err = g.cache.Start(ctx)
		if err != nil {
			err = fmt.Errorf("nodes: group %s: %w", g.group, err)
		}
	}
	if err == nil {
		err = g.node.WaitForInitialCreate(ctx)
	}
	if err != nil {
		_ = g.Close(ctx) // within ctx: a delete it cuts short goes on in the background
	}
	return err
}

// ID returns this member's id.
func (g *GroupMember) ID() string { return g.id }

// SetThisData sets this member's data; see PersistentNode.SetData.
func (g *GroupMember) SetThisData(ctx context.Context, data []byte) error {
	return g.node.SetData(ctx, data)
}

// CurrentMembers returns the members the cache holds, by id, with their
// data. As in Curator, this member is always in it, with the data it is
// kept with, even while its node is being made again.
func (g *GroupMember) CurrentMembers() map[string][]byte {
	members := make(map[string][]byte)
	for _, n := range g.cache.Snapshot() {
		members[IDFromPath(n.Path)] = n.Data
	}
	if _, ok := members[g.id]; !ok {
		members[g.id] = g.node.Data()
	}
	return members
}

// Close leaves the group: it stops the cache and deletes the member's node.
// A second Close returns nil.
func (g *GroupMember) Close(ctx context.Context) error {
	first, was := g.life.Close()
	if !first {
		return nil
	}
	if was == lifecycle.Started {
		_ = g.cache.Close() // ErrClosed only when it never started
	}
	return g.node.Close(ctx)
}

// IDFromPath returns the member id of a member's node path, as Curator's
// GroupMember reads it: the path's last element.
func IDFromPath(path string) string {
	return path[strings.LastIndexByte(path, '/')+1:]
}
