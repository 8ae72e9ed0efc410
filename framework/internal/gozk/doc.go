// Package gozk holds what the framework does to work around go-zookeeper
// v1.0.4, in one place, so that a newer go-zookeeper can retire it:
//
//   - The session timeout the server granted is only logged by go-zookeeper:
//     Logger reads it off that message.
//   - After a reconnect within the session, go-zookeeper sets the session's
//     watches again from the zxid it last saw, which it reads while the new
//     connection's receive loop may already be writing it (a data race,
//     go-zookeeper/zk PR #35, and a relative zxid that may skip changes).
//     Conn reports when go-zookeeper writes its SetWatches request, by its
//     opcode, and holds back the first reply that records a zxid until then;
//     a reply that cannot wait longer breaks the connection, never the race.
//   - go-zookeeper redials on its own: a Gate that is retired refuses to dial,
//     so a session the client gave up is never resumed.
//   - go-zookeeper has no request of ZooKeeper 3.6 (addWatch,
//     removeWatches, multiRead). A Link sends requests of our own on go-zookeeper's
//     connection: each is written whole between two of go-zookeeper's (which
//     writes each request in one call), with an xid from a range
//     go-zookeeper never uses (link.go says why it is safe), and the
//     connection reads the server's messages one header at a time, taking
//     the replies to ours off the stream before go-zookeeper reads it and
//     reporting each notification first (Hooks.Notify). A request whose
//     connection ends fails with zk.ErrConnectionClosed.
//   - Hooks.Exchange runs on each new connection once its session is
//     established and before go-zookeeper's first request, which waits for
//     it: the framework sets its persistent watches again there, and an
//     authentication exchange (SASL) can run there too. A request of the
//     owner's on the connection waits for it with Link.Ready.
//   - Before ZooKeeper 3.9 a connection holds one watch mode per path, so
//     the Gate follows go-zookeeper's one-shot watches from its requests
//     (oneshot.go) for the framework to keep both kinds apart.
//
// This package frames the stream itself; it copies no code of
// go-zookeeper's.
package gozk
