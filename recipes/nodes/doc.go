// Package nodes keeps nodes alive on the server, as Curator's recipes/nodes:
// PersistentNode, PersistentTTLNode and GroupMember, with Curator's node
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
// session; Path reports "" in between.
//
// A node that stands at the path already (without WithProtection) is taken
// over as Curator 5.4's PersistentNode takes it over when its create meets
// NodeExists: it is kept as it is, its data is set, WaitForInitialCreate
// returns once the data is on it, and Close deletes it. That holds for a
// persistent node in any mode (in an ephemeral mode it stays persistent and
// stands for this client in every session) and for any node in a
// persistent mode (another session's ephemeral node too; once it goes with
// its session the keeper makes its own). When the node's kind is not the
// mode's the keeper logs a warning, as Curator does. The one exception is
// the session rule: in an ephemeral mode an ephemeral node of another
// session (another process, with the same member id) is never taken over;
// the keeper waits for it to go, where Curator would take it over, and a
// WaitForInitialCreate that times out meanwhile names it. With
// WithProtection the node's name carries its own id, so it meets no node it
// did not make.
//
// A PersistentTTLNode is Curator's PersistentTtlNode (the old Go name stays
// as a deprecated alias): a container kept by a PersistentNode and a
// PersistentWithTTL child touched every TTL/factor. A server without TTL
// support makes WaitForInitialCreate fail with an error matching
// framework.ErrTTLNotEnabled. Unlike Curator, Close deletes the child and the
// container instead of leaving them to expire.
//
// A GroupMember is an ephemeral PersistentNode at <membershipPath>/<id> and
// a cache.PathChildrenCache of the group; CurrentMembers reads the cache and,
// as in Curator, always includes this member.
//
// A PersistentNode runs one goroutine, a PersistentTTLNode two, and a
// GroupMember one besides its cache's; all end with Close or with the
// client's Close. Close's delete is guaranteed: when its context or a
// partition cuts it short, it goes on in the background (an ephemeral
// node's in a goroutine of its own, which deletes the node only while a
// session of this client owns it, and ends once it is gone or the client
// closes), so no node outlives its Close. That includes an ephemeral node
// made in a new session whose owner the keeper was still reading when Close
// stopped it: made by this client, it is deleted whichever session owns it.
// A node that is waiting after a reconnect reuses its watch, which
// go-zookeeper keeps across the reconnects of one session.
//
// Without protection a sequential create whose reply is lost cannot be
// found again: the keeper's next create makes a second node (an ephemeral
// one goes with the session, a persistent one stays), and a Close during it
// cannot delete what it never learned the name of, as in Curator. Use
// WithProtection for sequential nodes.
package nodes
