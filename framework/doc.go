// Package framework is the Go counterpart of Apache Curator's CuratorFramework: a
// ZooKeeper client whose guarantees every recipe relies on.
//
// A Client connects in the background (Start), reports connection states to listeners
// in order (Listen), runs every operation under a retry policy after waiting for a
// connection (RetryLoop), validates paths before any request, prefixes paths with a
// namespace, creates parents and containers, and offers Curator's protected creates and
// guaranteed deletes. It is built on github.com/go-zookeeper/zk; Conn is the escape hatch.
//
// # Connection states
//
// The states and their transitions are Curator 5's:
//
//	event                                              state reported
//	first session established                          CONNECTED
//	connection lost while connected                    SUSPENDED
//	session established again (same or new session)    RECONNECTED
//	server reports the session expired                 LOST
//	go-zookeeper silently opened a new session         LOST, then RECONNECTED
//	SUSPENDED for the session timeout (simulated)      LOST; the session is replaced
//
// SUSPENDED is not repeated while SUSPENDED or LOST. The simulated expiry (see
// WithSimulatedSessionExpirationPercent) exists because during a partition the server's
// verdict cannot arrive: after the negotiated session timeout the client declares the
// session lost, closes that connection so the old session can never be resumed (its
// ephemeral nodes cannot outlive the claim), and opens a new session; the next
// successful connection reports RECONNECTED with a different SessionID. READ_ONLY is
// defined for completeness; go-zookeeper never connects read-only.
//
// Session hands out the current session as a value, as etcd's concurrency.Session:
// its ID and a Done channel closed once the client has moved on from it (an expiry,
// reported or simulated, or Close), before LOST is reported. A reconnect within
// the session leaves it open. Recipes keep the value beside the nodes they create.
//
// ErrorPolicy tells recipes which states mean that what they hold is lost:
// StandardErrorPolicy (SUSPENDED or LOST, Curator's default) or SessionErrorPolicy (LOST).
//
// # Operations
//
// Every operation takes a ctx. go-zookeeper's calls take none, so each request runs on
// its own goroutine and a cancelled ctx returns at once; the request may still complete
// on the server. Returned errors wrap go-zookeeper's, so errors.Is(err, zk.ErrNoNode)
// and the like work; paths ZooKeeper would reject fail with ErrInvalidPath before any
// request is sent.
//
// A wait means the whole wait: ctx bounds every call, its waits for a connection and
// its retries included. Background work (guaranteed deletes, the clean-up of a failed
// protected create) ends with Close, which waits for it at most
// min(5 s, connection timeout).
//
// # Chroot and namespace
//
// A connect string may end in a chroot, as the Java client's does
// ("zk1:2181,zk2:2181/app"): the client sends every path below "/app" and hands
// every path back relative to it, watch events included. The two ways to
// confine a client to a subtree differ in who makes the root:
//
//   - A chroot must exist: the client never creates it, and until it does every
//     operation fails with ErrNoChroot (the Java client would instead report
//     NoNode for each path). It is a deployment's choice, made in the connect
//     string, invisible to the code.
//   - A namespace (WithNamespace, UsingNamespace) is created as a container on
//     first use, and is the code's choice: Namespace() reports it, and views with
//     other namespaces share one connection.
//
// They compose: with "zk:2181/app" and WithNamespace("orders") the client's
// "/x" is "/app/orders/x" on the server, the namespace root "/app/orders" is
// created when missing, "/app" is not, and UsingNamespace("") stays inside
// "/app". ACL providers see paths without the chroot, as Curator's do; Conn,
// the escape hatch, knows no chroot.
//
// # Errors
//
// Errors name the package once (framework: create "/a": client is closed) and
// wrap what caused them, so that errors.Is matches through every layer:
//
//	ErrInvalidArgument  NewClient or an option got a value it cannot use (named)
//	ErrInvalidPath      a path ZooKeeper would reject (named), before any request
//	ErrNotStarted       an operation before Start
//	ErrClosed           an operation after Close
//	ErrNotConnected     no connection within the connection timeout (also a
//	                    retryable zk.ErrConnectionClosed) or before ctx ended (also
//	                    ctx's error); names the servers and the time waited
//	ErrTTLNotEnabled    a TTL create on a server without extendedTypesEnabled
//	ErrNoChroot         the connect string's chroot does not exist (named)
//	ErrUnresolvable     beside ErrNotConnected: no server name of the connect
//	                    string resolved (names them and the lookup error)
//
// Errors no call can return (a failed TLS handshake, a rejected authentication,
// a guaranteed delete given up, a recipe's background failure) are logged,
// counted in MetricUnhandledErrors and handed to ListenErrors; a given-up
// guaranteed operation matches ErrGuaranteedAbandoned.
//
// When the retry policy gives up, the last error is returned, prefixed with the
// number of attempts and the time since the first began.
//
// # Compression
//
// As in Curator, a node's data may be stored compressed: Create with
// Compressed() compresses, and the view c.Compressed() compresses what its
// Create and SetData write and decompresses what its GetData and GetDataW
// read (Create, SetData and GetData keep their signatures, so the per-call
// choice of Curator's builders is a view here, as UsingNamespace is). The
// provider is WithCompressionProvider's, GzipCompression by default, whose
// gzip frame has the header Curator's GzipCompressionProvider writes: a node
// compressed by either is read by the other.
//
// # Persistent watches
//
// AddWatch sets a persistent watch (ZooKeeper 3.6's addWatch), which
// go-zookeeper does not offer: the client sends it on go-zookeeper's own
// connection (internal/gozk). Its handle, a PersistentWatch, delivers the
// watch's events on one channel in the server's order, never blocking
// go-zookeeper; the client sets every watch again on each new connection
// and in each new session, before go-zookeeper's first request there, and
// puts a reset event in the handle's stream, since changes in between are
// not replayed. Handles on one path and mode share one watch on the server;
// the last Close removes it and leaves any one-shot watch on the path. The
// watch's notifications also reach ListenNodeEvents, as every notification
// does. recipes/watch builds Curator's PersistentWatcher on it.
//
// MultiRead sends many getData and getChildren reads in one request
// (ZooKeeper 3.6's multiRead, also absent from go-zookeeper) the same way:
// one write and one reply for all of them, where each read of its own costs
// both; a CuratorCache under a recursive watch reads its tree so.
//
// # Curator names
//
// Curator's builders, listeners and states, and the names they have here, are
// listed in docs/curator-migration.md.
package framework
