// Package barriers provides Curator's barriers with Curator's node layout, so
// that Go and Java processes can wait at the same barrier.
//
// DistributedBarrier is a gate: Set creates the barrier node, Remove deletes
// it, and Wait blocks until it does not exist. DistributedDoubleBarrier lets a
// group start and finish together: Enter blocks until memberQty members have
// entered, Leave until every member has left. memberQty is a threshold, not a
// limit, as in Curator.
//
// The double barrier speaks Curator 5.4's protocol node for node, so that Go
// and Java members share one barrier. Each member is an ephemeral child of
// the barrier path named by a random UUID. Enter watches the child "ready",
// creates its node and, unless "ready" exists, counts the children; the
// member that counts memberQty creates "ready", which opens the barrier for
// all. Leave lists the members (the children but "ready", sorted by name):
// the member holding the lowest node keeps it, watching the highest, until
// it is the only one left, then deletes it; every other member deletes its
// node at once and waits for the lowest to go. A member whose listing finds
// no member left, or only one that is not its own, is done, and deletes
// "ready". So no member returns from Leave before every member has started
// leaving, whichever language holds the lowest node.
//
// A wait means the whole wait: every call returns within its ctx, connecting
// and retries included, with an error that names what it was waiting for.
// Waits also look again after the connection comes back, since a watch
// cannot fire while the client is disconnected. On a closed client every
// call fails with framework.ErrClosed.
//
// The session rule holds for members: a member node counts as this client's
// membership only while the session that created it is the client's current
// one. If the client gives up the session (simulated expiry) or the server
// expires it before the barrier opens, Enter deletes the stale node, if it is
// still there, and fails with ErrMembershipLost rather than enter on a node
// that other members may already have stopped counting; Leave does the same
// if its node, while it still counts, is gone or from an old session. A
// failed or cancelled Enter or Leave deletes its node too: at once while its
// ctx lasts, else in the background (a guaranteed delete) once the partition
// heals, so that the call itself returns within its ctx. Each Enter after
// the first takes a new node name, so a delete still pending from an earlier
// one never removes the new node; and it first deletes every node an
// earlier Enter of the member may have left standing (one whose delete went
// to the background, or one never left), so that neither it nor another
// member counts one member twice. Curator gets the same from one node name
// per member.
// A Leave cancelled while its member holds the lowest node deletes that
// node too, which lets the members waiting for it go: cancel a Leave only to
// abandon the barrier.
//
// "ready" is persistent, as in Curator, and only a Leave that finds no
// member left deletes it. After a round in which every member's Leave
// failed (all sessions lost at once, say), it stays, and the next Enter on
// that path passes at once, alone. Give each round a path of its own (the
// fault campaign does), or delete a stale "ready" before reusing a path.
//
// go-zookeeper v1.0.4 cannot remove a watch: a Wait or Enter that ends by its
// ctx leaves its watch registered until the watched node next changes or the
// session ends.
package barriers
