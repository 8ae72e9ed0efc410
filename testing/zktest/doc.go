// Package zktest runs real Apache ZooKeeper servers for tests, the Go
// counterpart of Curator's curator-test module.
//
// A [Server] is a standalone ZooKeeper started as a child Java process on
// 127.0.0.1 and a free port, with its data in a temporary directory. A
// [Cluster] is an ensemble of such processes whose members can be killed and
// restarted one at a time, frozen and continued ([Cluster.Pause], SIGSTOP and
// SIGCONT, as a long GC pause or a stopped VM), and split from each other
// ([Cluster.Partition], [Cluster.Heal]): every quorum and election link from
// member i to member j runs through a Proxy of its own for that direction,
// so partitions need no root and no firewall. ZooKeeper's election
// connections announce the caller's own address, which the callee may dial
// back; the proxy rewrites that announcement to name the proxy of the
// opposite direction, so the call back is cut too. A client pinned to one
// member (connected to [Server.Addr] alone) stays on that member's side of
// a partition. A [Proxy] sits between a client and a server and
// injects the faults a network produces: it pauses traffic, severs
// connections and loses the reply to a chosen request.
//
// In tests use [StartServer] and [StartCluster]; they stop everything when the
// test ends and print the server log when the test failed. A package whose
// tests can share one server that none of them stops keeps a [Shared].
// Programs use [NewServer] and [NewCluster] and must call Close.
//
// [Eventually] awaits a condition, bounded in time. The helpers every
// package's tests use live here once: [TestContext] and [Context] bound a
// test's calls, [Must] fails a test on an error and [PrefixOnce] checks
// that an error carries its package's prefix once. Package zkclient (in
// testing/zktest/zkclient) gives tests a started, connected framework client;
// it is apart so that zktest itself never imports the framework.
//
// ZooKeeper and Java must be installed (scripts/install-zookeeper.sh, which
// make test runs). The environment variable ZOOKEEPER_CLASSPATH overrides the
// default class path, and JAVA_HOME selects the Java runtime.
package zktest
