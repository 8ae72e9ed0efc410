// CuratorBench runs Apache Curator's recipes for recipebench, so that the Go
// side can time zkcurator and Curator against one ZooKeeper in one run.
//
// Usage: java -cp <classes>:<curator and zookeeper jars> CuratorBench --session-timeout-ms 4000
//
// One command per line on stdin, words separated by spaces. Every client a
// command names is a CuratorFramework of its own (its own session), started
// and connected before the timed part; they are closed when the command ends,
// except an election participant's, which lives until "leave".
//
//   atomic <path> <lockPath> <retries> <perClient> <connect>...
//       one client per connect string; all start together and each increments a
//       DistributedAtomicLong perClient times (BoundedExponentialBackoffRetry 5 ms to
//       250 ms, retries; promoted to a lock at lockPath, 10 s, RetryNTimes(3, 1 ms))
//       -> RESULT ok=<n> failed=<n> promoted=<n> nanos=<n>
//   semaphore <path> <leases> <perClient> <connect>...
//       each client acquires and returns one lease of an InterProcessSemaphoreV2 perClient times
//       -> RESULT cycles=<n> nanos=<n>
//   queue <path> <lockPath> <perProducer> <clients> <connect>...
//       2 x clients connect strings: the first clients producers each put perProducer items
//       into a DistributedQueue (synchronously: putInBackground(false)) -> timed put phase;
//       then the other clients consume them in lock path mode, timed from the queues' start
//       until the last item reached a consumer; the queues close once the last delete landed
//       -> RESULT put=<n> putnanos=<n> taken=<n> takenanos=<n>
//   cacheload <tree|curator> <path> <connect>
//       starts a TreeCache or a CuratorCache of path and waits for its initialized event
//       -> RESULT nodes=<n> nanos=<n> bytes=<n>; bytes is the heap the loaded cache
//       holds: Runtime's used memory after System.gc() with the cache loaded, less
//       the same before it was built (the client already connected)
//   cacheburst <tree|curator> <path> <connect> <changes>
//       starts the cache, waits for its initialized event -> ARMED; then waits for
//       changes data-change events (someone else writes) -> RESULT changed=<n> last=<unix nanos
//       of the last one>
//   elect <latch|selector> <name> <path> <connect>
//       a LeaderLatch or LeaderSelector participant -> OK <name>; later LEADER <name> <unix nanos>
//       whenever it begins to lead (a selector leads until it is closed)
//   leave <name>
//       closes its latch or selector, then its client -> CLOSED <name> <unix nanos just before the close>
//
// A command that fails answers ERROR <exception>. Every wait is bounded (30 s;
// a cache's load or burst 120 s).
// When stdin closes the process exits.

import java.io.BufferedReader;
import java.io.Closeable;
import java.io.InputStreamReader;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.atomic.AtomicValue;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.framework.recipes.atomic.PromotedToLock;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.cache.TreeCache;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.framework.recipes.queue.DistributedQueue;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueConsumer;
import org.apache.curator.framework.recipes.queue.QueueSerializer;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.BoundedExponentialBackoffRetry;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.retry.RetryNTimes;

public final class CuratorBench {
    private static final long WAIT_SECONDS = 30;
    private static final long CACHE_WAIT_SECONDS = 120;

    private static int sessionMs = 4000;
    private static final ExecutorService POOL = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "bench");
        t.setDaemon(true);
        return t;
    });
    private static final Map<String, Participant> PARTICIPANTS = new ConcurrentHashMap<>();

    private record Participant(CuratorFramework client, Closeable election) {}

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("--session-timeout-ms")) {
            sessionMs = Integer.parseInt(args[1]);
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        emit("READY");
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.trim().split(" ");
            try {
                switch (f[0]) {
                    case "atomic" -> atomic(f[1], f[2], Integer.parseInt(f[3]), Integer.parseInt(f[4]), tail(f, 5));
                    case "semaphore" -> semaphore(f[1], Integer.parseInt(f[2]), Integer.parseInt(f[3]), tail(f, 4));
                    case "queue" -> queue(f[1], f[2], Integer.parseInt(f[3]), Integer.parseInt(f[4]), tail(f, 5));
                    case "cacheload" -> cacheLoad(f[1], f[2], f[3]);
                    case "cacheburst" -> cacheBurst(f[1], f[2], f[3], Integer.parseInt(f[4]));
                    case "elect" -> elect(f[1], f[2], f[3], f[4]);
                    case "leave" -> leave(f[1]);
                    default -> throw new IllegalArgumentException("unknown command: " + line);
                }
            } catch (Exception e) {
                emit("ERROR " + e.getClass().getName() + ": " + e.getMessage());
            }
        }
        Runtime.getRuntime().halt(0);
    }

    private static void atomic(String path, String lockPath, int retries, int perClient, List<String> connects)
            throws Exception {
        AtomicInteger ok = new AtomicInteger(), failed = new AtomicInteger(), promoted = new AtomicInteger();
        PromotedToLock lock = PromotedToLock.builder().lockPath(lockPath)
                .timeout(10, TimeUnit.SECONDS).retryPolicy(new RetryNTimes(3, 1)).build();
        long nanos = together(connects, client -> {
            DistributedAtomicLong counter = new DistributedAtomicLong(client, path,
                    new BoundedExponentialBackoffRetry(5, 250, retries), lock);
            return () -> {
                for (int i = 0; i < perClient; i++) {
                    AtomicValue<Long> r = counter.increment();
                    (r.succeeded() ? ok : failed).incrementAndGet();
                    if (r.getStats().getPromotedLockTries() > 0) {
                        promoted.incrementAndGet();
                    }
                }
                return null;
            };
        });
        emit("RESULT ok=" + ok + " failed=" + failed + " promoted=" + promoted + " nanos=" + nanos);
    }

    private static void semaphore(String path, int leases, int perClient, List<String> connects) throws Exception {
        AtomicInteger cycles = new AtomicInteger();
        long nanos = together(connects, client -> {
            InterProcessSemaphoreV2 sem = new InterProcessSemaphoreV2(client, path, leases);
            return () -> {
                for (int i = 0; i < perClient; i++) {
                    Lease lease = sem.acquire(WAIT_SECONDS, TimeUnit.SECONDS);
                    if (lease == null) {
                        throw new IllegalStateException("no lease of " + path + " within " + WAIT_SECONDS + " s");
                    }
                    sem.returnLease(lease);
                    cycles.incrementAndGet();
                }
                return null;
            };
        });
        emit("RESULT cycles=" + cycles + " nanos=" + nanos);
    }

    private static final QueueSerializer<byte[]> BYTES = new QueueSerializer<byte[]>() {
        @Override
        public byte[] serialize(byte[] item) {
            return item;
        }

        @Override
        public byte[] deserialize(byte[] bytes) {
            return bytes;
        }
    };

    private static void queue(String path, String lockPath, int perProducer, int clients, List<String> connects)
            throws Exception {
        if (connects.size() != 2 * clients) {
            throw new IllegalArgumentException(connects.size() + " connect strings, not " + 2 * clients);
        }
        AtomicInteger put = new AtomicInteger();
        byte[] item = "item-0123456789".getBytes(StandardCharsets.UTF_8);
        long putNanos = together(connects.subList(0, clients), client -> {
            DistributedQueue<byte[]> q = QueueBuilder.builder(client, null, BYTES, path).putInBackground(false).buildQueue();
            return () -> {
                q.start();
                try {
                    for (int i = 0; i < perProducer; i++) {
                        q.put(item);
                        put.incrementAndGet();
                    }
                } finally {
                    q.close();
                }
                return null;
            };
        });
        int total = perProducer * clients;
        AtomicInteger taken = new AtomicInteger();
        CountDownLatch all = new CountDownLatch(1);
        long[] lastAt = new long[1];
        QueueConsumer<byte[]> consumer = new QueueConsumer<byte[]>() {
            @Override
            public void consumeMessage(byte[] message) {
                if (taken.incrementAndGet() == total) {
                    lastAt[0] = System.nanoTime();
                    all.countDown();
                }
            }

            @Override
            public void stateChanged(CuratorFramework c, ConnectionState s) {}
        };
        List<CuratorFramework> clientsOpen = new ArrayList<>();
        List<DistributedQueue<byte[]>> queues = new ArrayList<>();
        long takeNanos;
        try {
            for (String c : connects.subList(clients, 2 * clients)) {
                CuratorFramework client = connect(c);
                clientsOpen.add(client);
                queues.add(QueueBuilder.builder(client, consumer, BYTES, path).lockPath(lockPath).buildQueue());
            }
            long began = System.nanoTime();
            for (DistributedQueue<byte[]> q : queues) {
                q.start();
            }
            if (!all.await(10 * WAIT_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException(taken + " of " + total + " items taken within " + 10 * WAIT_SECONDS + " s");
            }
            takeNanos = lastAt[0] - began;
            // Let the last deletes land before close interrupts the consumers.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (!clientsOpen.get(0).getChildren().forPath(path).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
        } finally {
            for (DistributedQueue<byte[]> q : queues) {
                q.close();
            }
            for (CuratorFramework c : clientsOpen) {
                c.close();
            }
        }
        emit("RESULT put=" + put + " putnanos=" + putNanos + " taken=" + taken + " takenanos=" + takeNanos);
    }

    /** Counts is what a cache's listener saw: nodes added, data changes, and when. */
    private static final class Counts {
        final AtomicInteger added = new AtomicInteger();
        final AtomicInteger changed = new AtomicInteger();
        final CountDownLatch initialized = new CountDownLatch(1);
        final CountDownLatch allChanged;
        volatile long lastChange;

        Counts(int changes) {
            allChanged = new CountDownLatch(changes);
        }

        void change() {
            changed.incrementAndGet();
            lastChange = unixNanos();
            allChanged.countDown();
        }
    }

    /** startCache builds and starts a TreeCache or CuratorCache of path whose listener feeds counts. */
    private static Closeable startCache(String kind, CuratorFramework client, String path, Counts counts)
            throws Exception {
        if (kind.equals("tree")) {
            TreeCache cache = TreeCache.newBuilder(client, path).build();
            cache.getListenable().addListener((c, e) -> {
                switch (e.getType()) {
                    case NODE_ADDED -> counts.added.incrementAndGet();
                    case NODE_UPDATED -> counts.change();
                    case INITIALIZED -> counts.initialized.countDown();
                    default -> {}
                }
            });
            cache.start();
            return cache;
        }
        if (kind.equals("curator")) {
            CuratorCache cache = CuratorCache.build(client, path);
            cache.listenable().addListener(new CuratorCacheListener() {
                @Override
                public void event(CuratorCacheListener.Type type, ChildData oldData, ChildData data) {
                    switch (type) {
                        case NODE_CREATED -> counts.added.incrementAndGet();
                        case NODE_CHANGED -> counts.change();
                        default -> {}
                    }
                }

                @Override
                public void initialized() {
                    counts.initialized.countDown();
                }
            });
            cache.start();
            return cache;
        }
        throw new IllegalArgumentException("unknown cache kind " + kind);
    }

    private static void awaitInitialized(String kind, String path, Counts counts) throws InterruptedException {
        if (!counts.initialized.await(CACHE_WAIT_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException(kind + " cache of " + path + " not initialized within "
                    + CACHE_WAIT_SECONDS + " s, after " + counts.added + " nodes");
        }
    }

    /** usedHeap is the heap in use after a few full collections. */
    private static long usedHeap() {
        Runtime r = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return r.totalMemory() - r.freeMemory();
    }

    private static void cacheLoad(String kind, String path, String connect) throws Exception {
        try (CuratorFramework client = connect(connect)) {
            Counts counts = new Counts(0);
            long before = usedHeap();
            long began = System.nanoTime();
            try (Closeable cache = startCache(kind, client, path, counts)) {
                awaitInitialized(kind, path, counts);
                long nanos = System.nanoTime() - began;
                long bytes = usedHeap() - before;
                Reference.reachabilityFence(cache);
                emit("RESULT nodes=" + counts.added + " nanos=" + nanos + " bytes=" + bytes);
            }
        }
    }

    private static void cacheBurst(String kind, String path, String connect, int changes) throws Exception {
        try (CuratorFramework client = connect(connect)) {
            Counts counts = new Counts(changes);
            try (Closeable cache = startCache(kind, client, path, counts)) {
                awaitInitialized(kind, path, counts);
                emit("ARMED");
                if (!counts.allChanged.await(CACHE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                    throw new IllegalStateException(kind + " cache of " + path + ": " + counts.changed + " of "
                            + changes + " changes within " + CACHE_WAIT_SECONDS + " s");
                }
                emit("RESULT changed=" + counts.changed + " last=" + counts.lastChange);
            }
        }
    }

    private static void elect(String kind, String name, String path, String connect) throws Exception {
        CuratorFramework client = connect(connect);
        if (kind.equals("latch")) {
            LeaderLatch latch = new LeaderLatch(client, path, name);
            latch.addListener(new LeaderLatchListener() {
                @Override
                public void isLeader() {
                    emit("LEADER " + name + " " + unixNanos());
                }

                @Override
                public void notLeader() {}
            });
            PARTICIPANTS.put(name, new Participant(client, latch));
            latch.start();
        } else if (kind.equals("selector")) {
            LeaderSelector selector = new LeaderSelector(client, path, new LeaderSelectorListenerAdapter() {
                @Override
                public void takeLeadership(CuratorFramework c) throws InterruptedException {
                    emit("LEADER " + name + " " + unixNanos());
                    new CountDownLatch(1).await(); // lead until close interrupts this thread
                }
            });
            selector.setId(name);
            PARTICIPANTS.put(name, new Participant(client, selector));
            selector.start();
        } else {
            client.close();
            throw new IllegalArgumentException("unknown election kind " + kind);
        }
        emit("OK " + name);
    }

    private static void leave(String name) throws Exception {
        Participant p = PARTICIPANTS.remove(name);
        if (p == null) {
            throw new IllegalArgumentException("no election participant " + name);
        }
        long at = unixNanos();
        p.election().close();
        p.client().close();
        emit("CLOSED " + name + " " + at);
    }

    /** Work is what one client does in a timed phase, made from its connected client. */
    private interface Work {
        Callable<Void> on(CuratorFramework client) throws Exception;
    }

    /**
     * together connects one client per connect string, then runs every client's work at
     * once and returns the nanoseconds from the start until the last one finished.
     */
    private static long together(List<String> connects, Work work) throws Exception {
        List<CuratorFramework> clients = new ArrayList<>();
        try {
            List<Callable<Void>> tasks = new ArrayList<>();
            for (String c : connects) {
                CuratorFramework client = connect(c);
                clients.add(client);
                tasks.add(work.on(client));
            }
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Void>> running = new ArrayList<>();
            for (Callable<Void> t : tasks) {
                running.add(POOL.submit(() -> {
                    go.await();
                    return t.call();
                }));
            }
            long began = System.nanoTime();
            go.countDown();
            for (Future<Void> r : running) {
                r.get(10 * WAIT_SECONDS, TimeUnit.SECONDS);
            }
            return System.nanoTime() - began;
        } finally {
            for (CuratorFramework c : clients) {
                c.close();
            }
        }
    }

    private static CuratorFramework connect(String connect) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(connect)
                .sessionTimeoutMs(sessionMs)
                .connectionTimeoutMs(sessionMs)
                .retryPolicy(new ExponentialBackoffRetry(50, 10, 1000))
                .build();
        client.start();
        if (!client.blockUntilConnected((int) WAIT_SECONDS, TimeUnit.SECONDS)) {
            client.close();
            throw new IllegalStateException("not connected to " + connect + " within " + WAIT_SECONDS + " s");
        }
        return client;
    }

    private static List<String> tail(String[] f, int from) {
        if (f.length <= from) {
            throw new IllegalArgumentException("no connect string in " + String.join(" ", f));
        }
        return Arrays.asList(f).subList(from, f.length);
    }

    private static long unixNanos() {
        Instant t = Instant.now();
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    private static synchronized void emit(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
