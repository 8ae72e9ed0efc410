// QueueCommands adds Curator's distributed queues to CuratorHelper. Items are
// UTF-8 strings without whitespace; a list of items is comma-separated.
//
// Verbs:
//   queue.put <kind> <path> <items> <arg>   kind fifo | id | priority | delay; arg is "-" (fifo),
//                                           the id, the priority or the due time in epoch ms.
//                                           Several items go in one putMulti (not for id, one put each).
//                                           Puts run in the foreground.                  -> PUT <path>
//   queue.consume <kind> <path> <lockPath|-> <count> <timeoutMs>
//                                           on a thread of its own: start a consumer, emit ITEM <item>
//                                           per item consumed, stop after count items or timeoutMs
//                                                                                        -> CONSUMED <n>
//   queue.hold <path> <lockPath>            start a lock-path DistributedQueue consumer that emits HOLDING <item>
//                                           for its first item and never returns from it (kill the helper
//                                           to see the item taken by another consumer)  -> HOLDING <item>
//   queue.remove <path> <id>                DistributedIdQueue.remove                    -> REMOVED <n>
//   queue.offer <path> <item>               SimpleDistributedQueue.offer                 -> OFFERED
//   queue.poll <path> <timeoutMs>           SimpleDistributedQueue.poll                  -> POLLED <item> | EMPTY

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Iterator;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.queue.DistributedDelayQueue;
import org.apache.curator.framework.recipes.queue.DistributedIdQueue;
import org.apache.curator.framework.recipes.queue.DistributedPriorityQueue;
import org.apache.curator.framework.recipes.queue.DistributedQueue;
import org.apache.curator.framework.recipes.queue.MultiItem;
import org.apache.curator.framework.recipes.queue.QueueBase;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueConsumer;
import org.apache.curator.framework.recipes.queue.QueueSerializer;
import org.apache.curator.framework.recipes.queue.SimpleDistributedQueue;
import org.apache.curator.framework.state.ConnectionState;

public final class QueueCommands {
    private static final ExecutorService POOL = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "queue");
        t.setDaemon(true);
        return t;
    });

    private static final QueueSerializer<String> UTF8 = new QueueSerializer<String>() {
        @Override
        public byte[] serialize(String item) {
            return item.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String deserialize(byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    };

    private QueueCommands() {}

    public static void dispatch(CuratorHelper helper, String id, String[] f) throws Exception {
        switch (f[1]) {
            case "queue.put":
                CuratorHelper.arity(f, 6);
                put(helper.client(), f[2], f[3], Arrays.asList(f[4].split(",")), f[5]);
                CuratorHelper.emit(CuratorHelper.now(), id, "PUT", f[3]);
                break;
            case "queue.consume": {
                CuratorHelper.arity(f, 7);
                String kind = f[2], path = f[3], lockPath = f[4].equals("-") ? null : f[4];
                int count = Integer.parseInt(f[5]);
                long timeoutMs = Long.parseLong(f[6]);
                POOL.execute(() -> consume(helper.client(), id, kind, path, lockPath, count, timeoutMs));
                break;
            }
            case "queue.hold": {
                CuratorHelper.arity(f, 4);
                QueueConsumer<String> consumer = new QueueConsumer<String>() {
                    @Override
                    public void consumeMessage(String item) throws Exception {
                        CuratorHelper.emit(CuratorHelper.now(), id, "HOLDING", item);
                        new CountDownLatch(1).await();
                    }

                    @Override
                    public void stateChanged(CuratorFramework c, ConnectionState s) {}
                };
                builder(helper.client(), consumer, f[2]).lockPath(f[3]).buildQueue().start();
                break;
            }
            case "queue.remove": {
                CuratorHelper.arity(f, 4);
                DistributedIdQueue<String> q = builder(helper.client(), null, f[2]).buildIdQueue();
                q.start();
                try {
                    CuratorHelper.emit(CuratorHelper.now(), id, "REMOVED", Integer.toString(q.remove(f[3])));
                } finally {
                    q.close();
                }
                break;
            }
            case "queue.offer":
                CuratorHelper.arity(f, 4);
                new SimpleDistributedQueue(helper.client(), f[2]).offer(f[3].getBytes(StandardCharsets.UTF_8));
                CuratorHelper.emit(CuratorHelper.now(), id, "OFFERED");
                break;
            case "queue.poll": {
                CuratorHelper.arity(f, 4);
                byte[] b = new SimpleDistributedQueue(helper.client(), f[2]).poll(Long.parseLong(f[3]), TimeUnit.MILLISECONDS);
                if (b == null) {
                    CuratorHelper.emit(CuratorHelper.now(), id, "EMPTY");
                } else {
                    CuratorHelper.emit(CuratorHelper.now(), id, "POLLED", new String(b, StandardCharsets.UTF_8));
                }
                break;
            }
            default:
                throw new IllegalArgumentException("unknown verb " + f[1]);
        }
    }

    private static QueueBuilder<String> builder(CuratorFramework client, QueueConsumer<String> consumer, String path) {
        return QueueBuilder.builder(client, consumer, UTF8, path).putInBackground(false);
    }

    private static MultiItem<String> multi(java.util.List<String> items) {
        Iterator<String> it = items.iterator();
        return () -> it.hasNext() ? it.next() : null;
    }

    private static void put(CuratorFramework client, String kind, String path, java.util.List<String> items, String arg) throws Exception {
        QueueBuilder<String> b = builder(client, null, path);
        switch (kind) {
            case "fifo": {
                DistributedQueue<String> q = b.buildQueue();
                q.start();
                try {
                    if (items.size() == 1) {
                        q.put(items.get(0));
                    } else {
                        q.putMulti(multi(items));
                    }
                } finally {
                    q.close();
                }
                break;
            }
            case "id": {
                DistributedIdQueue<String> q = b.buildIdQueue();
                q.start();
                try {
                    for (String item : items) {
                        q.put(item, arg);
                    }
                } finally {
                    q.close();
                }
                break;
            }
            case "priority": {
                DistributedPriorityQueue<String> q = b.buildPriorityQueue(0);
                q.start();
                try {
                    if (items.size() == 1) {
                        q.put(items.get(0), Integer.parseInt(arg));
                    } else {
                        q.putMulti(multi(items), Integer.parseInt(arg));
                    }
                } finally {
                    q.close();
                }
                break;
            }
            case "delay": {
                DistributedDelayQueue<String> q = b.buildDelayQueue();
                q.start();
                try {
                    if (items.size() == 1) {
                        q.put(items.get(0), Long.parseLong(arg));
                    } else {
                        q.putMulti(multi(items), Long.parseLong(arg));
                    }
                } finally {
                    q.close();
                }
                break;
            }
            default:
                throw new IllegalArgumentException("unknown queue kind " + kind);
        }
    }

    private static void consume(CuratorFramework client, String id, String kind, String path, String lockPath, int count, long timeoutMs) {
        CountDownLatch enough = new CountDownLatch(count);
        AtomicInteger n = new AtomicInteger();
        QueueConsumer<String> consumer = new QueueConsumer<String>() {
            @Override
            public void consumeMessage(String item) {
                CuratorHelper.emit(CuratorHelper.now(), id, "ITEM", item);
                n.incrementAndGet();
                enough.countDown();
            }

            @Override
            public void stateChanged(CuratorFramework c, ConnectionState s) {}
        };
        QueueBuilder<String> b = builder(client, consumer, path);
        if (lockPath != null) {
            b = b.lockPath(lockPath);
        }
        QueueBase<String> q;
        try {
            switch (kind) {
                case "fifo": q = b.buildQueue(); break;
                case "id": q = b.buildIdQueue(); break;
                case "priority": q = b.buildPriorityQueue(0); break;
                case "delay": q = b.buildDelayQueue(); break;
                default: throw new IllegalArgumentException("unknown queue kind " + kind);
            }
            q.start();
            try {
                long deadline = System.currentTimeMillis() + timeoutMs;
                if (enough.await(timeoutMs, TimeUnit.MILLISECONDS)) {
                    // Let the last item's delete finish before close interrupts the consumer thread.
                    while (!client.getChildren().forPath(path).isEmpty() && System.currentTimeMillis() < deadline) {
                        Thread.sleep(20);
                    }
                }
            } finally {
                q.close();
            }
            CuratorHelper.emit(CuratorHelper.now(), id, "CONSUMED", Integer.toString(n.get()));
        } catch (Exception e) {
            CuratorHelper.error(id, e);
        }
    }
}
