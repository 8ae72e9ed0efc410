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
package gozk
