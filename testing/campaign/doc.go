// Package campaign proves that zkcurator's locks keep their promise when the
// network and the ensemble do not: a seeded, bounded fault campaign against a
// real 3-node ZooKeeper ensemble, with a checker over the recorded history.
//
// Run starts one client per worker, each with a Proxy of its own in front of
// every ensemble member, so that the nemesis can partition, sever or suspend
// a single client; it also kills and restarts the leader or a follower.
// Every worker loops: acquire the lock (with a bounded wait), read the fence
// (the highest fencing token that ever wrote) and a counter, and write
// counter+1 in one transaction conditional on both versions, setting the
// fence to its own token only when that token is higher; then release. The
// same transaction creates an acknowledgement node named after the hold, so
// that a write whose reply was lost is still known to have applied. Every
// hold is recorded: when the worker entered and left the critical section,
// when it first saw the hold's Lost channel closed, its token and what
// became of its write; so is every connection state of every client.
//
// The checker then verifies: no two workers were inside the critical
// section at once while neither had seen Lost; applied writes carried
// strictly increasing tokens; the final counter equals the number of applied
// writes; no lock node outlived its client; every worker made progress after
// the last fault healed. The read/write campaign does the same with writers
// under the write lock and readers under the read lock, which must never
// overlap a writer.
//
// The semaphore campaigns (InterProcessSemaphoreV2 with two leases among five
// workers, and InterProcessSemaphoreMutex) hold leases instead: each worker
// takes a lease, reads the counter and dwells, and returns it. Their checker
// verifies that never more than maxLeases leases were held at once by workers
// that had not seen the lease's Lost channel closed, that no lease node and
// no node of the semaphore's lock outlived the clients, and that every worker
// held a clean lease after the last fault healed.
//
// The counter campaign increments values instead of holding a lock: every
// worker alternately increments a DistributedAtomicLong (even workers
// optimistically under atomic's default retries, odd ones after one
// optimistic try promoted to an InterProcessMutex) and a SharedCount through
// TrySet, and records each increment as applied (with its pre and post
// values), not applied, or of unknown outcome (ErrOutcomeUnknown). Its
// checker verifies, per value, that the final value lies between the applied
// count and the applied count plus the unknown ones, that each value no
// applied increment wrote can be laid to an unknown increment of its own
// begun before the value was read, that no two applied
// increments report the same post value and none one beyond the final value,
// that no node of the promoted lock outlived the clients, and that every
// worker applied an increment after the last fault healed.
//
// The TTL campaign runs the mutex campaign under
// PersistentTTLLockInternalsDriver: a TTL of one second, shorter than every
// pause the nemesis injects, a protected id per client kept across its holds
// (so a worker whose release failed or whose lease ended adopts its node
// again), and the session error policy on every other client, so that a
// holder cut off for longer than the TTL learns of it from its lease alone.
// Its workers stop their work as soon as Lost closes and release with a
// short bound, so a release in a partition goes on in the background while
// the worker contends again. The same checker applies; lock nodes outlive their clients only until
// their TTL runs out, which the final state waits for.
//
// The cache campaign runs a CuratorCache per worker over one subtree in
// which every worker creates, updates and deletes nodes (their data names
// the writer and its sequence) and keeps an ephemeral node of its session.
// After each fault heals, and once at the end, the writes stop until every
// cache's snapshot, and the replay of the events its listener was told,
// equals the server's subtree, the worker's ephemeral node in it; the
// checker verifies that each did within a bound of four session timeouts
// and two seconds, that no event contradicted those before it, and that no
// ephemeral node outlived the clients.
//
// The barrier campaign takes every worker through a
// DistributedDoubleBarrier of all of them, round after round (each round a
// path of its own, begun for every worker once the last has finished the
// round before): enter, dwell, leave, each call recorded. Its checker
// verifies that nobody passed Enter before every member had called it, that
// nobody returned from Leave before every member that passed Enter and
// still counted had called it (a member whose Leave failed with
// ErrMembershipLost no longer counts), that no member node outlived the
// clients and no ready node a clean round, and that a round after the last
// fault was clean.
//
// The queue campaign runs a DistributedQueue in lock path mode: even
// workers put uniquely named items, the queue bounded by WithMaxItems
// (each put recorded as returned, of unknown outcome, or failed), odd
// workers consume them, completing an item
// only while the consumer's ctx is alive; after the faults the producers
// stop and the consumers drain the queue. Its checker accounts for every
// item: a returned put is taken or left in the queue, an unknown put
// appears at most once, a failed one never, no item appears twice unless
// the earlier taker's connection failed before the item's delete could
// land (counted as retaken), and no lock node outlives the clients.
//
// Besides a client's own link and killed members, the nemesis splits the
// ensemble itself (zktest's Cluster.Partition: the leader cut off from its
// followers, one follower cut off, a bridge member that sees both sides,
// each past the ensemble's sync limit, a client sometimes pinned to the cut
// off member), freezes the leader or a follower (SIGSTOP past the sync
// limit, then SIGCONT: the old leader wakes believing it leads) and, in the
// mutex, TTL mutex, read/write, election and counter campaigns, freezes a
// contender that runs as an OS process of its own (internal/contender, built
// by the campaign) past its session timeout. A holder of the mutex or the
// write lock, or a leader, frozen after it read the fence, wakes and writes
// with its old token, conditional on what it read before it froze, and the
// fence must refuse it; such a hold or term, stopped past the session the
// server granted it, is clean until it froze (no lock can keep a stopped
// process from believing it still holds); the fencing
// and terms checks judge the rest and count any stale write that applied.
// An incrementer of the long, frozen with an increment in flight, finishes
// it after waking; the counter check judges it as any increment (applied
// once or not at all, unknown when its caller could not learn which).
// docs/campaign.md lists the rules and the measured runs.
//
// A campaign is reproducible in its fault schedule: the seed (with the lock
// kind) fixes which faults come, in which order, against whom and for how
// long; wall-clock timing can only cut a schedule short. A failing run
// prints its seed and the tail of its history.
package campaign
