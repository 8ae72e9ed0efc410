// Package discovery is Curator's service discovery (curator-x-discovery) in
// Go: a Go service registers its instances in the bytes Curator writes, and
// finds the instances Java services registered.
//
// An instance is a node {basePath}/{name}/{id} holding Curator's JSON:
//
//	{"name":"api","id":"1","address":"10.0.0.1","port":8080,"sslPort":null,
//	 "payload":{"@class":"com.example.Meta","zone":"a"},
//	 "registrationTimeUTC":1700000000000,"serviceType":"DYNAMIC",
//	 "uriSpec":{"parts":[{"value":"scheme","variable":true},...]}}
//
// ServiceInstance writes its fields in Curator's order, nulls where Curator
// writes nulls, and "enabled" only when set (Curator's default serializer
// omits it); it reads a missing "enabled" as true, a missing "serviceType" as
// DYNAMIC, and ignores fields it does not know. A payload keeps its Java
// class: PayloadClass is read from and written as Jackson's "@class". With
// T = json.RawMessage a payload round-trips byte for byte.
//
// A Java reader needs the payload's "@class" to name its own payload class
// (the class its JsonInstanceSerializer was given). Curator checks every
// payload against that class: a payload with no "@class" (read as a Map),
// another class or a class Java cannot load makes Curator fail to read the
// instance, and so queryForInstances fails for the whole service, good
// instances included. An instance Java services read must set
// PayloadClass (or have no payload at all); one read from a Java node keeps
// the class it had.
//
// ServiceDiscovery registers, updates and unregisters this process's
// instances and queries everyone's; ServiceCache follows one service's
// instances on recipes/cache's engine; ServiceProvider picks one of them per
// call by a ProviderStrategy (RoundRobin, Random, Sticky), after the user's
// filters, Curator's down-instance policy (NoteError) and the enabled flag.
//
// What registration guarantees:
//
//   - A registration creates its node in the mode of its service type
//     (DYNAMIC ephemeral, DYNAMIC_SEQUENTIAL ephemeral sequential, STATIC and
//     PERMANENT persistent), parents as containers. A node already there is
//     deleted and created again, so that watchers fire, as Curator does.
//   - Registering an id again replaces its registration whatever the
//     service types: one node stands for the id, of the new type's kind.
//     The old node goes first when the new create would not meet it (a
//     sequential node on either side, or another service name), where
//     Curator 5.4 leaves it standing.
//   - After every reconnect each registration is checked, and made again
//     once when its node is gone or belongs to a session other than the
//     client's current one; a registration whose create failed is made in
//     the background, reconnect or not. IsRegistered never reports a node
//     of a session the client gave up or lost. UnregisterService and Close
//     delete with a guaranteed delete; no registration outlives Close, not
//     even one still being made when Close's context ends. That holds for
//     STATIC and PERMANENT instances too, as in Curator 5.4, whose
//     ServiceDiscovery deletes every registration on close (only Curator's
//     REST discovery server keeps PERMANENT instances).
//
// Where this package differs from Curator 5.4, on purpose:
//
//   - Curator deletes and re-creates every registration on every reconnect,
//     even within the same session: watchers fire for nothing, and a
//     DYNAMIC_SEQUENTIAL instance gains a second node (its create never
//     meets NodeExists). Here a reconnect within the session changes
//     nothing, and a sequential registration keeps one node: when a
//     create's reply was lost and a retry made a second node, the current
//     session's other nodes named {id}{sequence} are deleted (so two
//     ServiceDiscovery values on one client must not register one id).
//   - Curator unregisters a DYNAMIC_SEQUENTIAL instance by deleting
//     {basePath}/{name}/{id}, which is not its node, so the node stays until
//     the session ends; here the node created is the one deleted.
//   - Unregistering or updating an instance not registered here is
//     ErrNotRegistered (Curator ignores the unregister).
//   - A ServiceCache does not create its service's parent nodes (Curator's
//     ServiceCache creates them as containers): reading needs no write.
//   - An instance the down-instance policy left out is back in exactly its
//     timeout after its first noted error (Curator drops a status only at a
//     purge, which runs at most every timeout/2, so an instance may stay
//     out up to 1.5 x the timeout); an error noted after that starts a new
//     period.
//   - The down-instance policy and the sticky strategy know an instance by
//     its name and id (Curator compares every field, so an updated instance
//     starts afresh).
//   - An empty Address is written as null.
package discovery
