// CacheCommands adds Curator's CuratorCache to CuratorHelper, and plain writes through the helper's
// client so that the Java side can change a cached tree too.
//
// Verbs (data is base64, "-" for no bytes):
//   cache.start <handle> <path> <timeoutMs>   CuratorCache.build(client, path), start, wait for its
//                                             initialized listener -> CACHE_STARTED <handle> <size>
//   cache.dump <handle>                       every node the cache holds, sorted by path
//                                             -> CACHE_NODES <handle> <size> <path|data|czxid|mzxid,...> ("-" when empty)
//   cache.await <handle> <path> <timeoutMs>   wait until the cache holds path -> CACHE_HAS <handle> <path>
//   cache.close <handle>                      close the cache -> OK
//   cache.create <path> <data>                create, parents as needed -> OK
//   cache.set <path> <data>                   setData without a version -> OK
//   cache.delete <path>                       delete with its children -> OK

import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;

public final class CacheCommands {
    private static final Map<String, Held> CACHES = new ConcurrentHashMap<>();
    private static final ExecutorService POOL = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "cache");
        t.setDaemon(true);
        return t;
    });

    private CacheCommands() {}

    /** A started cache, and a monitor its listener notifies on every change. */
    private static final class Held implements CuratorCacheListener {
        final CuratorCache cache;
        final CountDownLatch initialized = new CountDownLatch(1);

        Held(CuratorCache cache) {
            this.cache = cache;
        }

        @Override
        public synchronized void event(Type type, ChildData oldData, ChildData data) {
            notifyAll();
        }

        @Override
        public void initialized() {
            initialized.countDown();
        }

        /** Waits until the cache holds path; false when timeoutMs passed first. */
        synchronized boolean await(String path, long timeoutMs) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            while (!cache.get(path).isPresent()) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    return false;
                }
                wait(left);
            }
            return true;
        }
    }

    public static void dispatch(CuratorHelper helper, String id, String[] f) throws Exception {
        switch (f[1]) {
            case "cache.start": {
                CuratorHelper.arity(f, 5);
                Held h = new Held(CuratorCache.build(helper.client(), f[3]));
                if (CACHES.putIfAbsent(f[2], h) != null) {
                    throw new IllegalArgumentException("handle " + f[2] + " already defined");
                }
                h.cache.listenable().addListener(h);
                h.cache.start();
                if (!h.initialized.await(Long.parseLong(f[4]), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("cache " + f[2] + " of " + f[3] + " not initialized within " + f[4] + " ms");
                }
                CuratorHelper.emit(CuratorHelper.now(), id, "CACHE_STARTED", f[2], Integer.toString(h.cache.size()));
                break;
            }
            case "cache.dump": {
                CuratorHelper.arity(f, 3);
                Map<String, ChildData> sorted = new TreeMap<>();
                held(f[2]).cache.stream().forEach(d -> sorted.put(d.getPath(), d));
                StringBuilder sb = new StringBuilder();
                for (ChildData d : sorted.values()) {
                    if (sb.length() > 0) {
                        sb.append(',');
                    }
                    byte[] data = d.getData() == null ? new byte[0] : d.getData();
                    sb.append(d.getPath()).append('|').append(Base64.getEncoder().encodeToString(data))
                            .append('|').append(d.getStat().getCzxid()).append('|').append(d.getStat().getMzxid());
                }
                CuratorHelper.emit(CuratorHelper.now(), id, "CACHE_NODES", f[2], Integer.toString(sorted.size()),
                        sb.length() == 0 ? "-" : sb.toString());
                break;
            }
            case "cache.await": {
                CuratorHelper.arity(f, 5);
                Held h = held(f[2]);
                String path = f[3];
                long timeout = Long.parseLong(f[4]);
                POOL.execute(() -> {
                    try {
                        if (!h.await(path, timeout)) {
                            throw new IllegalStateException("cache " + f[2] + " did not hold " + path + " within " + timeout + " ms");
                        }
                        CuratorHelper.emit(CuratorHelper.now(), id, "CACHE_HAS", f[2], path);
                    } catch (Exception e) {
                        CuratorHelper.error(id, e);
                    }
                });
                break;
            }
            case "cache.close": {
                CuratorHelper.arity(f, 3);
                Held h = CACHES.remove(f[2]);
                if (h == null) {
                    throw new IllegalArgumentException("no cache handle " + f[2]);
                }
                h.cache.close();
                CuratorHelper.emit(CuratorHelper.now(), id, "OK");
                break;
            }
            case "cache.create":
                CuratorHelper.arity(f, 4);
                helper.client().create().creatingParentsIfNeeded().forPath(f[2], data(f[3]));
                CuratorHelper.emit(CuratorHelper.now(), id, "OK");
                break;
            case "cache.set":
                CuratorHelper.arity(f, 4);
                helper.client().setData().forPath(f[2], data(f[3]));
                CuratorHelper.emit(CuratorHelper.now(), id, "OK");
                break;
            case "cache.delete":
                CuratorHelper.arity(f, 3);
                helper.client().delete().deletingChildrenIfNeeded().forPath(f[2]);
                CuratorHelper.emit(CuratorHelper.now(), id, "OK");
                break;
            default:
                throw new IllegalArgumentException("unknown verb " + f[1]);
        }
    }

    private static byte[] data(String word) {
        return word.equals("-") ? new byte[0] : Base64.getDecoder().decode(word);
    }

    private static Held held(String handle) {
        Held h = CACHES.get(handle);
        if (h == null) {
            throw new IllegalArgumentException("no cache handle " + handle);
        }
        return h;
    }
}
