// Package interop proves that zkcurator's lock recipes and Apache Curator's
// work together on the same ZooKeeper paths, so Go and Java services can
// share locks during a migration or for good; and that they exclude Python's
// Kazoo and go-zookeeper's zk.Lock too.
//
// The Java side is real Curator: the Debian package libcurator-recipes-java,
// Curator 5.4.0, with the ZooKeeper 3.8 client from /usr/share/java
// (scripts/install-zookeeper.sh installs both and a JDK; make interop runs this
// suite). java/CuratorHelper.java is compiled with javac once per test binary
// and runs as a separate JVM per Helper. It reads line commands on stdin and
// prints timestamped events on stdout; Helper drives it with a context bound on
// every wait and kills it with SIGKILL when a test needs a crashed process. A
// helper halts when its stdin closes and, on Linux, when the test binary dies.
//
// Against a real ZooKeeper server from testing/zktest the tests show, with a Go
// contender first and with a Java contender first:
//
//   - InterProcessMutex: Go and Curator exclude each other and hand the lock
//     over in arrival order, so fairness holds across languages.
//   - Each side's ParticipantNodes lists the other's contenders in the same
//     order, and Curator's ProtectedUtils.isProtectedZNode accepts zkcurator's
//     node names (and zkcurator's protection package accepts Curator's).
//   - InterProcessReadWriteLock: readers of both languages share; a writer of
//     either language excludes readers of the other; a waiting writer is not
//     overtaken by a later reader; a Go downgrade (write, read, release write)
//     keeps a waiting Curator writer out until the read lock is released.
//   - InterProcessSemaphoreV2: leases taken from both languages never exceed
//     the maximum.
//   - Revocation: Curator's Revoker reaches a Go holder's MakeRevocable
//     callback, and AttemptRevoke reaches a Curator revocation listener.
//   - A holder whose process is killed frees the lock for a waiter of the other
//     language within the holder's session timeout.
//   - Under mixed contention (Go and Curator contenders, a counter read and
//     written back without a version under the lock) no increment is lost.
//   - DistributedDoubleBarrier: Go and Curator members enter together, and,
//     with two of each leaving in a scripted order (the lowest first, or
//     second to last) and either language holding the lowest node, no
//     member returns from its leave before the last has started leaving
//     and the lowest member's node goes last (Curator 5.4's protocol).
//   - Distributed queues (java/QueueCommands.java): items Curator puts (put,
//     putMulti, ids, priorities, due times, SimpleDistributedQueue offers)
//     are consumed by zkcurator in Curator's order, and the reverse; Go and
//     Curator remove each other's items by id; Go and Curator consumers on
//     one lock path take every item exactly once between them, and the item
//     of a Curator consumer killed mid-item goes to a Go consumer, once.
//
// Curator 5.4.0 predates the fix of CURATOR-621 (5.5.0): its own downgrade
// creates the read node with a new sequence, behind any writer already
// waiting, so that writer (Go or Java) gets the write lock while the Curator
// downgrader still holds the read lock. zkcurator downgrades the 5.5.0 way (the
// read node reuses the write node's sequence, as a plain ephemeral node),
// which 5.4.0 writers sort correctly; the Java-side downgrade is therefore not
// tested here.
//
// Exclusion is judged two ways: each owner reports the interval it held the
// lock (stamped after its acquire returned and before its release began, so a
// reported interval lies inside the real one) and no two intervals may
// overlap; and a shared counter must end at exactly the number of increments.
//
// # Kazoo and go-zookeeper
//
// The Python side is real Kazoo: Debian's python3-kazoo (2.8.0) for
// /usr/bin/python3, which scripts/install-zookeeper.sh installs. kazoo/helper.py
// speaks the Curator helper's line protocol and runs as a separate python3 per
// KazooHelper (StartKazoo); a missing python3 or Kazoo fails the test with
// what to install. go-zookeeper's zk.Lock runs in the test binary. The tests
// show:
//
//   - TestExclusionTable: for every ordered pair of zkcurator, Curator,
//     go-zookeeper and Kazoo (with extra_lock_patterns, by default, and under
//     Curator's node name), whether the second waits while the first holds,
//     which docs/interop.md's table states. A waiter counts as waiting once it
//     watches the holder's node (the server's "wchp"), and must then get the
//     lock after the release.
//   - Kazoo's Lock and zkcurator's mutex hand over in arrival order, each
//     listing the other's contenders; Kazoo's ReadLock and WriteLock and
//     InterProcessReadWriteLock share and exclude in both modes.
//   - A kill -9ed Kazoo holder frees the lock for a Go waiter, and the other
//     way round, within the session timeout.
//   - zkcurator, go-zookeeper, Curator and Kazoo contend on one mutex and
//     increment a shared counter exactly, with no overlapping holds.
package interop
