// BarriersCommands adds Curator's DistributedDoubleBarrier to CuratorHelper.
//
// Verbs:
//   barriers.double <handle> <path> <memberQty>  define a member -> OK
//   barriers.enter <handle> <timeoutMs>          on a thread of its own -> ENTERED <handle> <true|false>
//   barriers.leave <handle> <timeoutMs>          on a thread of its own -> LEFT <handle> <true|false>

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;

public final class BarriersCommands {
    private static final ExecutorService POOL = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "barriers");
        t.setDaemon(true);
        return t;
    });
    private static final Map<String, DistributedDoubleBarrier> MEMBERS = new ConcurrentHashMap<>();

    private BarriersCommands() {}

    public static void dispatch(CuratorHelper helper, String id, String[] f) throws Exception {
        switch (f[1]) {
            case "barriers.double": {
                CuratorHelper.arity(f, 5);
                DistributedDoubleBarrier b = new DistributedDoubleBarrier(helper.client(), f[3], Integer.parseInt(f[4]));
                if (MEMBERS.putIfAbsent(f[2], b) != null) {
                    throw new IllegalArgumentException("handle " + f[2] + " already defined");
                }
                CuratorHelper.emit(CuratorHelper.now(), id, "OK");
                break;
            }
            case "barriers.enter":
            case "barriers.leave": {
                CuratorHelper.arity(f, 4);
                DistributedDoubleBarrier b = MEMBERS.get(f[2]);
                if (b == null) {
                    throw new IllegalArgumentException("no handle " + f[2]);
                }
                long timeoutMs = Long.parseLong(f[3]);
                boolean enter = f[1].equals("barriers.enter");
                POOL.execute(() -> {
                    try {
                        boolean ok = enter ? b.enter(timeoutMs, TimeUnit.MILLISECONDS) : b.leave(timeoutMs, TimeUnit.MILLISECONDS);
                        CuratorHelper.emit(CuratorHelper.now(), id, enter ? "ENTERED" : "LEFT", f[2], Boolean.toString(ok));
                    } catch (Exception e) {
                        CuratorHelper.error(id, e);
                    }
                });
                break;
            }
            default:
                throw new IllegalArgumentException("unknown verb " + f[1]);
        }
    }
}
