// AtomicCommands adds Curator's DistributedAtomicLong to CuratorHelper.
//
// Verbs:
//   atomic.increment <path> <count>   increment count times on a thread of its own (optimistic, up to
//                                     1000 retries of 1ms each) -> ATOMIC_DONE <path> <succeeded> <failed>
//   atomic.get <path>                 -> VALUE <path> <value>

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.apache.curator.framework.recipes.atomic.AtomicValue;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.retry.RetryNTimes;

public final class AtomicCommands {
    private static final ExecutorService POOL = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "atomic");
        t.setDaemon(true);
        return t;
    });

    private AtomicCommands() {}

    public static void dispatch(CuratorHelper helper, String id, String[] f) throws Exception {
        switch (f[1]) {
            case "atomic.increment": {
                CuratorHelper.arity(f, 4);
                String path = f[2];
                int count = Integer.parseInt(f[3]);
                DistributedAtomicLong counter = new DistributedAtomicLong(helper.client(), path, new RetryNTimes(1000, 1));
                POOL.execute(() -> {
                    try {
                        int ok = 0;
                        int failed = 0;
                        for (int i = 0; i < count; i++) {
                            AtomicValue<Long> r = counter.increment();
                            if (r.succeeded()) {
                                ok++;
                            } else {
                                failed++;
                            }
                        }
                        CuratorHelper.emit(CuratorHelper.now(), id, "ATOMIC_DONE", path, Integer.toString(ok), Integer.toString(failed));
                    } catch (Exception e) {
                        CuratorHelper.error(id, e);
                    }
                });
                break;
            }
            case "atomic.get": {
                CuratorHelper.arity(f, 3);
                AtomicValue<Long> r = new DistributedAtomicLong(helper.client(), f[2], new RetryNTimes(0, 0)).get();
                CuratorHelper.emit(CuratorHelper.now(), id, "VALUE", f[2], Long.toString(r.postValue()));
                break;
            }
            default:
                throw new IllegalArgumentException("unknown verb " + f[1]);
        }
    }
}
