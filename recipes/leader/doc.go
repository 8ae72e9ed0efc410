// Package leader is leader election on ZooKeeper with Curator's two
// recipes, LeaderLatch and LeaderSelector, speaking their protocols so that
// Go and Java (Curator 5.x) participants on one path elect one leader among
// them.
//
// # Leadership is a context
//
// Each stretch of leadership is a Term. Its context is cancelled the moment
// leadership is no longer certain, and context.Cause says why:
//
//   - the connection enters an error state of the client's error policy
//     (Suspended under framework.StandardErrorPolicy, Lost under
//     framework.SessionErrorPolicy);
//   - the client's session is no longer the one that owns the leading node
//     (the client gave the session up, or the server expired it);
//   - the leading node is found deleted (by an operator, or a revocation);
//   - the client is closed (ErrLeadershipLost, matching framework.ErrClosed
//     too): the latch or selector then stops, and its Close returns at once;
//   - the latch or selector is closed (ErrClosed), or a selector's function
//     returned (ErrTermEnded).
//
// Under framework.SessionErrorPolicy a term survives a suspension, so a
// leader cut off from the ensemble keeps its term until its client declares
// the session Lost, which may come after the server expired the session and
// another participant took over: with that policy, fence every write.
//
// A term carries a fencing token, the czxid of the node that leads, read
// from a node this session owns when the term begins. Because a latch gives
// its node up when a term ends and queues again with a new one, tokens
// strictly increase from term to term across all participants: a store that
// keeps the highest token it has seen refuses a deposed leader's late writes.
//
// # The session rule
//
// A node counts only while the session that created it is the client's
// current one. A participant learns the session that owns its node when it
// creates it and checks it before every decision to lead; a node of a
// session the client gave up never grants leadership. It is deleted and the
// participant queues again with a new node.
//
// # LeaderLatch
//
// A latch queues a protected EPHEMERAL_SEQUENTIAL "latch-" node holding its
// id under the path; the lowest node leads and every other participant
// watches the node just before its own. Start queues it, Await waits for a
// term, Leadership delivers term changes, HasLeadership answers now, and
// Close leaves the election (Curator's close modes decide whether the end
// is reported on the Leadership channel). Unlike Curator's latch, a latch
// does not lead again through the same node after a suspension: the term
// ends, the node is deleted, and the latch queues again behind the others.
//
// A term's end gives the latch's node up at once, so the next participant
// may lead while this one's work is still stopping. When that work cannot
// stop the moment the term's context is cancelled, WithManualStepDown keeps
// the node (and the latch from queueing again) until StepDown says the work
// has stopped: no one else leads meanwhile, unless the session that owns
// the node ends (a pause past the session timeout), which no client can
// prevent. 'zkcurator elect' works this way.
//
// # LeaderSelector
//
// A selector runs a function while it leads. Leadership is a
// locks.InterProcessMutex on the path whose "lock-" nodes hold the ids, as
// in Curator; the function gets the term's context (built on the mutex's
// Lost channel plus a watch on the lock node) and leadership is given up
// when it returns, not before: the lock node stays until the function has
// returned, so the next participant never leads while it runs (unless the
// session ends). With WithAutoRequeue the selector queues again each time;
// otherwise Requeue asks for another turn.
//
// Participants and Leader read the ids from the nodes, so they list Java
// participants too.
//
// # Waits, lifecycle and errors
//
// Every call that can wait takes a ctx and returns within a few
// milliseconds of its deadline, whether the client is connecting, retrying
// or cut off; the error matches ctx's error and says what the call waited
// for (leadership, a node's deletion, the leader function). Bad arguments
// (a nil client, function or option, an empty id, an invalid path or the
// root, an unknown close mode) are reported by NewLeaderLatch and
// NewLeaderSelector, as ErrInvalidArgument naming the value; a constructor
// makes no request and starts nothing. Start returns at once:
// ErrAlreadyStarted the second time, ErrClosed after Close,
// framework.ErrClosed on a closed client. Close is idempotent: a second
// Close, or one before Start, returns nil. Errors carry the "leader: "
// prefix once.
package leader
