// SharedCommands adds Curator's SharedCount to CuratorHelper.
//
// Verbs:
//   shared.increment <path> <count>   on a thread of its own: start a SharedCount (seed 0), then count times
//                                     read the versioned value and trySetCount it +1, again on false
//                                     -> SHARED_DONE <path> <count> <conflicts>
//   shared.get <path>                 -> VALUE <path> <count>

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.apache.curator.framework.recipes.shared.SharedCount;
import org.apache.curator.framework.recipes.shared.VersionedValue;

public final class SharedCommands {
    private static final ExecutorService POOL = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "shared");
        t.setDaemon(true);
        return t;
    });

    private SharedCommands() {}

    public static void dispatch(CuratorHelper helper, String id, String[] f) throws Exception {
        switch (f[1]) {
            case "shared.increment": {
                CuratorHelper.arity(f, 4);
                String path = f[2];
                int count = Integer.parseInt(f[3]);
                POOL.execute(() -> {
                    try (SharedCount sc = new SharedCount(helper.client(), path, 0)) {
                        sc.start();
                        int conflicts = 0;
                        for (int i = 0; i < count; i++) {
                            for (int tries = 0; ; tries++) {
                                if (tries == 10000) {
                                    throw new IllegalStateException("increment " + i + " conflicted 10000 times");
                                }
                                VersionedValue<Integer> v = sc.getVersionedValue();
                                if (sc.trySetCount(v, v.getValue() + 1)) {
                                    break;
                                }
                                conflicts++;
                            }
                        }
                        CuratorHelper.emit(CuratorHelper.now(), id, "SHARED_DONE", path, Integer.toString(count), Integer.toString(conflicts));
                    } catch (Exception e) {
                        CuratorHelper.error(id, e);
                    }
                });
                break;
            }
            case "shared.get": {
                CuratorHelper.arity(f, 3);
                try (SharedCount sc = new SharedCount(helper.client(), f[2], 0)) {
                    sc.start();
                    CuratorHelper.emit(CuratorHelper.now(), id, "VALUE", f[2], Integer.toString(sc.getCount()));
                }
                break;
            }
            default:
                throw new IllegalArgumentException("unknown verb " + f[1]);
        }
    }
}
