// Command zkcurator runs a command under a ZooKeeper lock, semaphore lease
// or leadership, as flock(1) does on one host, and inspects such locks. Its
// nodes speak Apache Curator's protocol, so it takes turns with Java services
// that use Curator's InterProcessMutex, InterProcessReadWriteLock,
// InterProcessSemaphoreV2 or LeaderLatch on the same path.
//
//	zkcurator lock [flags] PATH [--] COMMAND [ARGS...]
//	zkcurator semaphore [flags] PATH --leases N [--] COMMAND [ARGS...]
//	zkcurator elect [flags] PATH --id NAME [--] COMMAND [ARGS...]
//	zkcurator participants [flags] PATH
//	zkcurator revoke [flags] NODE
//	zkcurator discover [flags] NAME
//	zkcurator register [flags] NAME --address HOST --port N [--] COMMAND [ARGS...]
//	zkcurator queue [flags] put|take PATH [DATA|-]
//	zkcurator watch [flags] [--recursive] [--data] PATH
//
// queue puts an item on, or takes items from, Curator's DistributedQueue
// (and its id, priority and delay variants) at PATH, so that a shell script
// can feed or drain a queue Java services use; take --lock-path follows
// Curator's lock safety.
//
// watch prints each change of PATH (with --recursive, of every node below
// it) as a JSON line, from a persistent watch, and a Reset line where
// changes may have been missed, until a signal ends it.
//
// discover and register speak Curator's service discovery
// (curator-x-discovery): register keeps an instance registered while
// COMMAND runs (ZKCURATOR_INSTANCE_ID in its environment), discover lists a
// service's instances as their nodes' JSON.
//
// The command gets ZKCURATOR_LOCK_NODE and ZKCURATOR_FENCING_TOKEN in its
// environment. When holding is no longer certain (Lost), it gets SIGTERM,
// and SIGKILL after --grace; zkcurator then exits with status 79. SIGINT,
// SIGTERM and SIGHUP are passed on to it; on a terminal it runs as the
// foreground job, so that Ctrl-C reaches it once. Otherwise zkcurator exits
// with the command's status; its own statuses (1 nothing there, 64 usage,
// 69 ZooKeeper unreachable, 75 --wait elapsed, 77 refused by an ACL, 79
// lost, 126 and 127 as a shell's) are listed by
// 'zkcurator help exit-codes' and in docs/cli.md.
//
// Credentials come from --auth-file or ZK_AUTH (one scheme:credentials a
// line); --auth works too, but other local users see it in the process
// list. --sasl-user authenticates by SASL DIGEST-MD5, with the password of
// --sasl-password-file or ZK_SASL_PASSWORD (there is no flag for it). No
// credential appears in zkcurator's messages or its --verbose log.
//
// Each subcommand is one file defining a command; the commands table in
// main.go lists them.
package main
