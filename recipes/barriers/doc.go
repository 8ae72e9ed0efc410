// Package barriers provides Curator's barriers with Curator's node layout, so
// that Go and Java processes can wait at the same barrier.
//
// DistributedBarrier is a gate: Set creates the barrier node, Remove deletes
// it, and Wait blocks until it does not exist. DistributedDoubleBarrier lets a
// group start and finish together: Enter blocks until memberQty members have
// entered, Leave until every member has left. Its layout is Curator's: each
// member is an ephemeral child of the barrier path named by a random UUID,
// and the member that sees the count reached creates the child "ready",
// which opens the barrier for all; leaving members delete their nodes, and
// the last to see none left deletes "ready". memberQty is a threshold, not a
// limit, as in Curator.
//
// Waits end with their ctx; they also look again after the connection comes
// back, since a watch cannot fire while the client is disconnected.
//
// The session rule holds for members: a member node counts as this client's
// membership only while the session that created it is the client's current
// one. If the client gives up the session (simulated expiry) or the server
// expires it before the barrier opens, Enter deletes the stale node, if it is
// still there, and fails with ErrMembershipLost rather than enter on a node
// that other members may already have stopped counting; Leave does the same
// if it finds its node from an old session. A cancelled Enter deletes its
// node too.
//
// go-zookeeper v1.0.4 cannot remove a watch: a Wait or Enter that ends by its
// ctx leaves its watch registered until the watched node next changes or the
// session ends.
package barriers
