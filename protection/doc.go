// Package protection reads and writes Curator's protected node names.
//
// A protected create (Curator's withProtection(), zkcurator's
// framework.WithProtection) puts a fresh UUID in front of the node name. A
// sequential protected lock node looks like this:
//
//	_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000007
//
// that is [Prefix] "_c_", the id (a UUID in its 36-character text), "-", the
// name "lock-", and the sequence "0000000007" that ZooKeeper appended.
//
// When the create fails with a connection loss, the client lists the parent
// and finds its own node by that id ([Find]) instead of creating a second one.
// The format is Curator's byte for byte, so Go and Java processes can share
// lock, semaphore and leader paths. The functions map onto Curator's
// ProtectedUtils:
//
//	Curator 5.x (ProtectedUtils, CreateBuilderImpl)   zkcurator
//	UUID.randomUUID().toString()                      NewID
//	toProtectedZNode(name, id)                        Name(id, name)
//	isProtectedZNode(name)                            IsProtected
//	extractProtectedId(name)                          ID
//	normalize(name)                                   Strip
//	findNode(children, path, id)                      Find
//
// [Sequence] reads the ten-character suffix that ZooKeeper appends to a
// sequential node, including the negative values written after the parent's
// counter wraps. Every function accepts any string without panicking.
package protection
