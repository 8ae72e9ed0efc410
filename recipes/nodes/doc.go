// Package nodes keeps nodes alive on the server, as Curator's recipes/nodes:
// PersistentNode, PersistentTtlNode and GroupMember, with Curator's node
// layout, so that Go and Java processes share them.
//
// A PersistentNode is created in the background after Start, in any create
// mode (ephemeral or persistent, sequential or not, protected or not, with a
// TTL), and made again whenever it is deleted or its session is lost, with
// the latest data given to SetData. Once it has stood at a name it is made
// again at that name: a sequential node keeps its sequence number (made in
// the matching plain mode), and a protected node keeps its "_c_<uuid>-" id,
// exactly as Curator 5.4 names them. A protected create whose reply was lost
// is found again by that id, never made twice. WaitForInitialCreate waits for
// the first create; Close deletes the node.
//
// The session rule holds: an ephemeral node counts for this client only
// while the session that created it is the client's current one. When the
// client gives a session up (simulated expiry) the node of that session,
// still on the server for a while, is deleted and made anew in the current
// session; Path reports "" in between. An ephemeral node of another session
// that holds the path (another process, with the same member id) is never
// adopted: the keeper waits for it to go, where Curator would take it over.
// A persistent node that already stands at the path is adopted and its data
// set, as in Curator.
//
// A PersistentTtlNode is Curator's: a container kept by a PersistentNode
// and a PersistentWithTTL child touched every TTL/factor. A server without
// TTL support makes WaitForInitialCreate fail with an error matching
// framework.ErrTTLNotEnabled. Unlike Curator, Close deletes the child and the
// container instead of leaving them to expire.
//
// A GroupMember is an ephemeral PersistentNode at <membershipPath>/<id> and
// a cache.PathChildrenCache of the group; CurrentMembers reads the cache and,
// as in Curator, always includes this member.
//
// A PersistentNode runs one goroutine, a PersistentTtlNode two, and a
// GroupMember one besides its cache's; all end with Close or with the
// client's Close. Close's delete is guaranteed: when its context or a
// partition cuts it short, it goes on in the background (an ephemeral
// node's in a goroutine of its own, which deletes the node only while a
// session of this client owns it, and ends once it is gone or the client
// closes), so no node outlives its Close. A node that is waiting after a reconnect reuses its watch,
// which go-zookeeper keeps across the reconnects of one session.
//
// Without protection a sequential create whose reply is lost cannot be
// found again: the keeper's next create makes a second node (an ephemeral
// one goes with the session, a persistent one stays), and a Close during it
// cannot delete what it never learned the name of, as in Curator. Use
// WithProtection for sequential nodes.
package nodes
