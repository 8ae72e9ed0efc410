# Kazoo helper: drives Python Kazoo's lock recipes from line commands so that
# zkcurator's interoperability tests can put a real Kazoo client on the same
# ZooKeeper paths as Go and Java clients. It speaks CuratorHelper's protocol.
#
# Usage: /usr/bin/python3 -c <this file> --connect 127.0.0.1:2181 [--session-timeout-ms 2000]
#
# Input, one command per line on stdin:  <id> <verb> [args...]
# Output, one event per line on stdout:  EVENT <unix-nanos> <id> <kind> [fields...]
#
# Every command gets at least one event carrying its id: its result, or
# "ERROR <exception>: <message>". READY carries the id "-". ACQUIRED is stamped
# right after the lock was obtained, RELEASED right before the release began
# (the event itself is printed once the release is done).
#
# Handles: each lock object is named by the test (its Kazoo identifier too) and
# runs its commands in order on a thread of its own.
#
# Verbs:
#   mutex       <handle> <path> [pattern...]  Lock(path, extra_lock_patterns=patterns)      -> OK
#   readlock    <handle> <path> [pattern...]  ReadLock(path, extra_lock_patterns=patterns)  -> OK
#   writelock   <handle> <path> [pattern...]  WriteLock(path, extra_lock_patterns=patterns) -> OK
#   curatorlock <handle> <path>               CuratorNamedLock(path), see below              -> OK
#   acquire     <handle> <timeoutMs>          -> ACQUIRED <handle> <node path> | TIMEOUT <handle>
#   release     <handle>                      -> RELEASED <handle>
#   count       <handle> <counterPath> <rounds> <timeoutMs>
#               per round: acquire, read the counter, write it +1 without a version, release
#               -> ROUND <handle> <acquiredNanos> <releasingNanos> <valueWritten> per round, then COUNTED
#   contenders  <handle>                      Kazoo's contenders(): the contenders' node data in
#                                             Kazoo's order -> PARTICIPANTS <handle> <comma-separated, or "-">
#   quit                                      stop the client (deleting its ephemeral nodes) -> BYE
#
# When stdin closes the process exits at once without closing its client, like
# a crashed service: its ephemeral nodes stay until the session expires.

import os
import queue
import sys
import threading
import time

try:
    from kazoo.client import KazooClient
    from kazoo.exceptions import LockTimeout
    from kazoo.recipe.lock import Lock
except ImportError as e:
    sys.stdout.write("EVENT %d - ERROR kazoo is not importable by %s (%s): install Debian's "
                     "python3-kazoo (scripts/install-zookeeper.sh)\n" % (time.time_ns(), sys.executable, e))
    sys.stdout.flush()
    sys.exit(2)


class CuratorNamedLock(Lock):
    """Kazoo's Lock under Curator's node name: its nodes are named
    "<uuid hex>-lock-<sequence>", which Curator, go-zookeeper and zkcurator read
    as mutex contenders, and it waits for their nodes and for Kazoo's own Lock
    and WriteLock nodes."""

    _NODE_NAME = "-lock-"
    _EXCLUDE_NAMES = ["-lock-", "__lock__"]


_out = threading.Lock()


def emit(at, cid, kind, *fields):
    line = " ".join(["EVENT", str(at), cid, kind] + [str(f) for f in fields])
    with _out:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def error(cid, exc):
    msg = " ".join(str(exc).split()) or "-"
    emit(time.time_ns(), cid, "ERROR", "%s: %s" % (type(exc).__name__, msg))


class Handle:
    def __init__(self, name, lock):
        self.name = name
        self.lock = lock
        self.tasks = queue.Queue()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        while True:
            cid, task = self.tasks.get()
            try:
                task()
            except Exception as e:  # every failure is the command's answer
                error(cid, e)

    def submit(self, cid, task):
        self.tasks.put((cid, task))

    def acquire(self, timeout_ms):
        """Acquires the lock; returns when it did, or None after timeout_ms."""
        try:
            if not self.lock.acquire(timeout=timeout_ms / 1000.0):
                return None
        except LockTimeout:
            return None
        return time.time_ns()

    def node(self):
        return self.lock.path + "/" + self.lock.node


class Helper:
    def __init__(self, client):
        self.client = client
        self.handles = {}

    def define(self, cid, args, make):
        if len(args) < 2:
            raise ValueError("want <handle> <path> [pattern...], got %r" % (args,))
        name, path, patterns = args[0], args[1], args[2:]
        if name in self.handles:
            raise ValueError("handle %s already defined" % name)
        self.handles[name] = Handle(name, make(path, patterns, name))
        emit(time.time_ns(), cid, "OK")

    def handle(self, args, arity):
        if len(args) != arity:
            raise ValueError("want %d arguments, got %r" % (arity, args))
        h = self.handles.get(args[0])
        if h is None:
            raise ValueError("no handle %s" % args[0])
        return h

    def dispatch(self, cid, verb, args):
        c = self.client
        if verb == "mutex":
            self.define(cid, args, lambda p, pats, n: c.Lock(p, n, extra_lock_patterns=pats))
        elif verb == "readlock":
            self.define(cid, args, lambda p, pats, n: c.ReadLock(p, n, extra_lock_patterns=pats))
        elif verb == "writelock":
            self.define(cid, args, lambda p, pats, n: c.WriteLock(p, n, extra_lock_patterns=pats))
        elif verb == "curatorlock":
            if len(args) != 2:
                raise ValueError("want <handle> <path>, got %r" % (args,))
            self.define(cid, args, lambda p, pats, n: CuratorNamedLock(c, p, n))
        elif verb == "acquire":
            h = self.handle(args, 2)
            timeout = int(args[1])

            def acquire():
                at = h.acquire(timeout)
                if at is None:
                    emit(time.time_ns(), cid, "TIMEOUT", h.name)
                else:
                    emit(at, cid, "ACQUIRED", h.name, h.node())
            h.submit(cid, acquire)
        elif verb == "release":
            h = self.handle(args, 1)

            def release():
                at = time.time_ns()
                h.lock.release()
                emit(at, cid, "RELEASED", h.name)
            h.submit(cid, release)
        elif verb == "count":
            h = self.handle(args, 4)
            counter, rounds, timeout = args[1], int(args[2]), int(args[3])

            def count():
                for _ in range(rounds):
                    acquired = h.acquire(timeout)
                    if acquired is None:
                        emit(time.time_ns(), cid, "TIMEOUT", h.name)
                        return
                    data, _ = c.get(counter)
                    text = data.decode("utf-8").strip()
                    value = (int(text) if text else 0) + 1
                    c.set(counter, str(value).encode("utf-8"))
                    releasing = time.time_ns()
                    h.lock.release()
                    emit(releasing, cid, "ROUND", h.name, acquired, releasing, value)
                emit(time.time_ns(), cid, "COUNTED", h.name, rounds)
            h.submit(cid, count)
        elif verb == "contenders":
            h = self.handle(args, 1)
            names = h.lock.contenders()
            emit(time.time_ns(), cid, "PARTICIPANTS", h.name, ",".join(names) if names else "-")
        else:
            raise ValueError("unknown verb %s" % verb)

    def serve(self):
        for line in sys.stdin:
            f = line.split()
            if len(f) < 2:
                emit(time.time_ns(), "-", "ERROR", "malformed command: %r" % line)
                continue
            cid, verb, args = f[0], f[1], f[2:]
            if verb == "quit":
                self.client.stop()
                self.client.close()
                emit(time.time_ns(), cid, "BYE")
                os._exit(0)
            try:
                self.dispatch(cid, verb, args)
            except Exception as e:
                error(cid, e)
        os._exit(0)  # stdin closed: go away like a crash, the session stays


def main(argv):
    opts = dict(zip(argv[0::2], argv[1::2]))
    connect = opts.get("--connect")
    if not connect:
        emit(time.time_ns(), "-", "ERROR", "missing --connect")
        return 2
    session_ms = int(opts.get("--session-timeout-ms", "2000"))
    client = KazooClient(hosts=connect, timeout=session_ms / 1000.0)
    try:
        client.start(timeout=max(session_ms / 1000.0, 5.0))
    except Exception as e:
        error("-", e)
        return 2
    session_id, _ = client.client_id
    emit(time.time_ns(), "-", "READY", "%x" % session_id, session_ms)
    Helper(client).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
