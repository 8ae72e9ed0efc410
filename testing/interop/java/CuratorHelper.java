// CuratorHelper drives Apache Curator's lock recipes from line commands so that
// zkcurator's interoperability tests can put a real Curator client on the same
// ZooKeeper paths as a Go client.
//
// Usage: java -cp <classes>:<curator and zookeeper jars> CuratorHelper
//            --connect 127.0.0.1:2181 [--session-timeout-ms 3000] [--connection-timeout-ms 3000]
//            [--acl scheme:id,...]   every node the client creates gets these entries, all permissions
//
// Input, one command per line on stdin:  <id> <verb> [args...]
// Output, one event per line on stdout:  EVENT <unix-nanos> <id> <kind> [fields...]
//
// Every command gets at least one event carrying its id: its result, or
// "ERROR <exception>: <message>". Events not caused by a command carry the id "-"
// (READY, STATE). Times are wall-clock nanoseconds: ACQUIRED is stamped right after
// the lock was obtained, RELEASED right before the release began (the event itself
// is printed once the release is done), so a reported hold interval always lies
// inside the real one.
//
// Handles: a lock object is named by the test and bound to one thread of its own,
// because Curator ties lock ownership to the acquiring thread. Targets name a
// handle ("h1") or, for a read/write lock, one side of it ("h1/read", "h1/write").
//
// Verbs:
//   mutex      <handle> <path>              define an InterProcessMutex           -> OK
//   rwlock     <handle> <path>              define an InterProcessReadWriteLock   -> OK
//   semaphore  <handle> <path> <maxLeases>  define an InterProcessSemaphoreV2     -> OK
//   acquire    <target> <timeoutMs>         -> ACQUIRED <target> <node path> | TIMEOUT <target>
//   release    <target>                     (a semaphore returns its newest lease) -> RELEASED <target>
//   hold       <target> <holdMs> <timeoutMs> acquire, keep for holdMs, release -> ACQUIRED, RELEASED
//   count      <target> <counterPath> <rounds> <timeoutMs>
//              per round: acquire, read the counter, write it +1 without a version, release
//              -> ROUND <target> <acquiredNanos> <releasingNanos> <valueWritten> per round, then COUNTED <target> <rounds>
//   participants <target>                   -> PARTICIPANTS <target> <comma-separated paths, or "-" when none>
//   protected  <name>...                    ProtectedUtils.isProtectedZNode per name -> PROTECTED <true|false>...
//   revocable  <target>                     makeRevocable; when asked to revoke: REVOKE_REQUESTED <target>, then
//                                           the handle releases -> OK now, later REVOKE_REQUESTED and RELEASED
//   revoke     <node path>                  Revoker.attemptRevoke -> REVOKE_SENT <node path>
//   <group>.<verb> ...                      a verb of java/<Group>Commands.java (see extension)
//   quit                                    close the client and exit -> BYE
//
// When stdin closes the process halts at once without closing its client, like a
// crashed service: its ephemeral nodes stay until the session expires.

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.ProtectedUtils;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.framework.recipes.locks.Revoker;
import org.apache.curator.retry.ExponentialBackoffRetry;

public final class CuratorHelper {
    private static final PrintStream OUT = new PrintStream(
            new BufferedOutputStream(new FileOutputStream(FileDescriptor.out)), false, StandardCharsets.UTF_8);

    private final CuratorFramework client;
    private final Map<String, Handle> handles = new ConcurrentHashMap<>();
    private final ExecutorService shared = Executors.newCachedThreadPool(daemon("shared"));

    private CuratorHelper(CuratorFramework client) {
        this.client = client;
    }

    public static void main(String[] args) throws Exception {
        String connect = null;
        int sessionMs = 3000;
        int connectionMs = 3000;
        String acl = null;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--connect": connect = value; i++; break;
                case "--session-timeout-ms": sessionMs = Integer.parseInt(value); i++; break;
                case "--connection-timeout-ms": connectionMs = Integer.parseInt(value); i++; break;
                case "--acl": acl = value; i++; break;
                default:
                    emit(now(), "-", "ERROR", "unknown argument " + args[i]);
                    System.exit(2);
            }
        }
        if (connect == null) {
            emit(now(), "-", "ERROR", "missing --connect");
            System.exit(2);
        }
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(connect)
                .sessionTimeoutMs(sessionMs)
                .connectionTimeoutMs(connectionMs)
                .retryPolicy(new ExponentialBackoffRetry(50, 10, 1000));
        if (acl != null) {
            builder.aclProvider(SecurityCommands.aclProvider(acl));
        }
        CuratorFramework client = builder.build();
        client.getConnectionStateListenable().addListener((c, state) -> emit(now(), "-", "STATE", state.name()));
        client.start();
        if (!client.blockUntilConnected(connectionMs, TimeUnit.MILLISECONDS)) {
            emit(now(), "-", "ERROR", "not connected to " + connect + " within " + connectionMs + "ms");
            System.exit(2);
        }
        long session = client.getZookeeperClient().getZooKeeper().getSessionId();
        int negotiated = client.getZookeeperClient().getZooKeeper().getSessionTimeout();
        emit(now(), "-", "READY", Long.toHexString(session), Integer.toString(negotiated));
        new CuratorHelper(client).serve();
    }

    private void serve() throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 2) {
                emit(now(), "-", "ERROR", "malformed command: " + line);
                continue;
            }
            String id = f[0];
            if (f[1].equals("quit")) {
                client.close();
                emit(now(), id, "BYE");
                System.exit(0);
            }
            try {
                dispatch(id, f);
            } catch (Exception e) {
                error(id, e);
            }
        }
        Runtime.getRuntime().halt(0);
    }

    private void dispatch(String id, String[] f) throws Exception {
        switch (f[1]) {
            case "mutex":
                define(id, f, 4, new Handle(f[2], f[3], new InterProcessMutex(client, f[3]), null, null));
                break;
            case "rwlock":
                define(id, f, 4, new Handle(f[2], f[3], null, new InterProcessReadWriteLock(client, f[3]), null));
                break;
            case "semaphore":
                define(id, f, 5, new Handle(f[2], f[3], null, null,
                        new InterProcessSemaphoreV2(client, f[3], Integer.parseInt(f[4]))));
                break;
            case "acquire": {
                arity(f, 4);
                Target t = target(f[2]);
                long timeout = Long.parseLong(f[3]);
                t.handle.run(id, () -> {
                    String node = t.acquire(timeout);
                    if (node == null) {
                        emit(now(), id, "TIMEOUT", t.name);
                    } else {
                        emit(t.handle.acquiredAt, id, "ACQUIRED", t.name, node);
                    }
                });
                break;
            }
            case "release": {
                arity(f, 3);
                Target t = target(f[2]);
                t.handle.run(id, () -> release(id, t));
                break;
            }
            case "hold": {
                arity(f, 5);
                Target t = target(f[2]);
                long holdMs = Long.parseLong(f[3]);
                long timeout = Long.parseLong(f[4]);
                t.handle.run(id, () -> {
                    String node = t.acquire(timeout);
                    if (node == null) {
                        emit(now(), id, "TIMEOUT", t.name);
                        return;
                    }
                    emit(t.handle.acquiredAt, id, "ACQUIRED", t.name, node);
                    Thread.sleep(holdMs);
                    release(id, t);
                });
                break;
            }
            case "count": {
                arity(f, 6);
                Target t = target(f[2]);
                String counter = f[3];
                int rounds = Integer.parseInt(f[4]);
                long timeout = Long.parseLong(f[5]);
                t.handle.run(id, () -> {
                    for (int r = 0; r < rounds; r++) {
                        if (t.acquire(timeout) == null) {
                            emit(now(), id, "TIMEOUT", t.name);
                            return;
                        }
                        long acquired = t.handle.acquiredAt;
                        byte[] data = client.getData().forPath(counter);
                        String text = new String(data, StandardCharsets.UTF_8).trim();
                        long value = (text.isEmpty() ? 0 : Long.parseLong(text)) + 1;
                        client.setData().forPath(counter, Long.toString(value).getBytes(StandardCharsets.UTF_8));
                        long releasing = now();
                        t.release();
                        emit(releasing, id, "ROUND", t.name, Long.toString(acquired), Long.toString(releasing),
                                Long.toString(value));
                    }
                    emit(now(), id, "COUNTED", t.name, Integer.toString(rounds));
                });
                break;
            }
            case "participants": {
                arity(f, 3);
                Target t = target(f[2]);
                shared.execute(() -> {
                    try {
                        Collection<String> nodes = t.participants();
                        emit(now(), id, "PARTICIPANTS", t.name, nodes.isEmpty() ? "-" : String.join(",", nodes));
                    } catch (Exception e) {
                        error(id, e);
                    }
                });
                break;
            }
            case "protected": {
                List<String> answers = new ArrayList<>();
                for (int i = 2; i < f.length; i++) {
                    answers.add(Boolean.toString(ProtectedUtils.isProtectedZNode(f[i])));
                }
                emit(now(), id, "PROTECTED", answers.toArray(new String[0]));
                break;
            }
            case "revocable": {
                arity(f, 3);
                Target t = target(f[2]);
                t.lock().makeRevocable(lock -> {
                    emit(now(), id, "REVOKE_REQUESTED", t.name);
                    t.handle.run(id, () -> release(id, t));
                });
                emit(now(), id, "OK");
                break;
            }
            case "revoke": {
                arity(f, 3);
                String path = f[2];
                shared.execute(() -> {
                    try {
                        Revoker.attemptRevoke(client, path);
                        emit(now(), id, "REVOKE_SENT", path);
                    } catch (Exception e) {
                        error(id, e);
                    }
                });
                break;
            }
            default:
                extension(id, f);
        }
    }

    /**
     * Runs a verb "<group>.<name>" through the class GroupCommands (java/GroupCommands.java), which has
     * {@code static void dispatch(CuratorHelper helper, String id, String[] f)}: recipes beyond the locks
     * add their verbs in files of their own.
     */
    private void extension(String id, String[] f) throws Exception {
        int dot = f[1].indexOf('.');
        if (dot <= 0) {
            throw new IllegalArgumentException("unknown verb " + f[1]);
        }
        String group = f[1].substring(0, dot);
        Class<?> c;
        try {
            c = Class.forName(Character.toUpperCase(group.charAt(0)) + group.substring(1) + "Commands");
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("unknown verb " + f[1]);
        }
        c.getMethod("dispatch", CuratorHelper.class, String.class, String[].class).invoke(null, this, id, f);
    }

    /** The helper's Curator client, for extensions. */
    CuratorFramework client() {
        return client;
    }

    private void define(String id, String[] f, int n, Handle h) {
        arity(f, n);
        if (handles.putIfAbsent(h.name, h) != null) {
            throw new IllegalArgumentException("handle " + h.name + " already defined");
        }
        emit(now(), id, "OK");
    }

    private static void release(String id, Target t) throws Exception {
        long releasing = now();
        t.release();
        emit(releasing, id, "RELEASED", t.name);
    }

    private Target target(String spec) {
        String[] parts = spec.split("/", 2);
        Handle h = handles.get(parts[0]);
        if (h == null) {
            throw new IllegalArgumentException("no handle " + parts[0]);
        }
        String side = parts.length == 2 ? parts[1] : "";
        boolean rw = h.rw != null;
        if (rw != (side.equals("read") || side.equals("write")) || (!rw && !side.isEmpty())) {
            throw new IllegalArgumentException("bad target " + spec + ": use <handle>/read or <handle>/write for a "
                    + "read/write lock and <handle> otherwise");
        }
        return new Target(spec, h, side);
    }

    static void arity(String[] f, int n) {
        if (f.length != n) {
            throw new IllegalArgumentException(f[1] + " takes " + (n - 2) + " arguments, got " + (f.length - 2));
        }
    }

    /** A lock object and the one thread that acquires and releases it. */
    private static final class Handle {
        final String name;
        final String path;
        final InterProcessMutex mutex;
        final InterProcessReadWriteLock rw;
        final InterProcessSemaphoreV2 semaphore;
        final Deque<Lease> leases = new ArrayDeque<>();
        final ExecutorService thread;
        volatile long acquiredAt;

        Handle(String name, String path, InterProcessMutex mutex, InterProcessReadWriteLock rw,
                InterProcessSemaphoreV2 semaphore) {
            this.name = name;
            this.path = path;
            this.mutex = mutex;
            this.rw = rw;
            this.semaphore = semaphore;
            this.thread = Executors.newSingleThreadExecutor(daemon("handle-" + name));
        }

        void run(String id, Work work) {
            thread.execute(() -> {
                try {
                    work.run();
                } catch (Exception e) {
                    error(id, e);
                }
            });
        }
    }

    /** One lockable thing within a handle: the mutex, a side of the read/write lock, or the semaphore. */
    private static final class Target {
        final String name;
        final Handle handle;
        final String side;

        Target(String name, Handle handle, String side) {
            this.name = name;
            this.handle = handle;
            this.side = side;
        }

        InterProcessMutex lock() {
            if (handle.semaphore != null) {
                throw new IllegalArgumentException(name + " is a semaphore");
            }
            if (handle.rw == null) {
                return handle.mutex;
            }
            return side.equals("read") ? handle.rw.readLock() : handle.rw.writeLock();
        }

        /** Returns the node that holds the lock or lease, or null on timeout. */
        String acquire(long timeoutMs) throws Exception {
            if (handle.semaphore != null) {
                Lease lease = handle.semaphore.acquire(timeoutMs, TimeUnit.MILLISECONDS);
                if (lease == null) {
                    return null;
                }
                handle.acquiredAt = now();
                handle.leases.push(lease);
                // Lease.getNodeName gives the bare node name; report the full path like the locks do.
                return handle.path + "/leases/" + lease.getNodeName();
            }
            InterProcessMutex m = lock();
            if (!m.acquire(timeoutMs, TimeUnit.MILLISECONDS)) {
                return null;
            }
            handle.acquiredAt = now();
            return lockPath(m);
        }

        void release() throws Exception {
            if (handle.semaphore != null) {
                Lease lease = handle.leases.poll();
                if (lease == null) {
                    throw new IllegalStateException(name + " holds no lease");
                }
                lease.close();
                return;
            }
            lock().release();
        }

        Collection<String> participants() throws Exception {
            if (handle.semaphore != null) {
                return handle.semaphore.getParticipantNodes();
            }
            return lock().getParticipantNodes();
        }
    }

    @FunctionalInterface
    private interface Work {
        void run() throws Exception;
    }

    private static final Method LOCK_PATH;

    static {
        try {
            LOCK_PATH = InterProcessMutex.class.getDeclaredMethod("getLockPath");
            LOCK_PATH.setAccessible(true);
        } catch (NoSuchMethodException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Returns the lock node of a held InterProcessMutex (Curator keeps the accessor protected). */
    private static String lockPath(InterProcessMutex m) throws IllegalAccessException, InvocationTargetException {
        return (String) LOCK_PATH.invoke(m);
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    static long now() {
        Instant t = Instant.now();
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    static void error(String id, Throwable e) {
        while (e instanceof InvocationTargetException && e.getCause() != null) {
            e = e.getCause();
        }
        emit(now(), id, "ERROR", e.getClass().getName() + ": " + e.getMessage());
    }

    static synchronized void emit(long nanos, String id, String kind, String... fields) {
        StringBuilder b = new StringBuilder("EVENT ").append(nanos).append(' ').append(id).append(' ').append(kind);
        for (String field : fields) {
            b.append(' ').append(field.replaceAll("\\s+", " "));
        }
        OUT.print(b.append('\n'));
        OUT.flush();
    }
}
