// LeaderCommands adds Curator's leader election recipes to CuratorHelper as "leader.<verb>" commands,
// so that zkcurator's interoperability tests can put Java participants in the same election as Go ones.
//
// Verbs (a handle names one latch or selector):
//   leader.latch       <handle> <path> <id>  start a LeaderLatch -> OK; later, on this command's id,
//                                            LEADER <handle> when it leads, NOT_LEADER <handle> when it stops
//   leader.await       <handle> <timeoutMs>  LeaderLatch.await -> AWAITED <handle> <true|false>
//   leader.selector    <handle> <path> <id>  start an auto-requeueing LeaderSelector -> OK; later, on this
//                                            command's id, TAKEN <handle> when takeLeadership begins and
//                                            YIELDED <handle> or INTERRUPTED <handle> when it ends
//   leader.yield       <handle>              make the selector's current takeLeadership return -> OK
//   leader.participants <handle>            -> PARTICIPANTS <handle> <id:isLeader,... or "-">
//   leader.close       <handle> <silent|notify>  close the latch (with that CloseMode) or the selector -> CLOSED <handle>

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.framework.recipes.leader.Participant;

public final class LeaderCommands {
    private static final Map<String, LeaderLatch> LATCHES = new ConcurrentHashMap<>();
    private static final Map<String, Selected> SELECTORS = new ConcurrentHashMap<>();
    private static final ExecutorService POOL = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "leader-commands");
        t.setDaemon(true);
        return t;
    });

    private LeaderCommands() {
    }

    /** A LeaderSelector and the permits that end its turns. */
    private static final class Selected {
        final Semaphore yields = new Semaphore(0);
        LeaderSelector selector;
    }

    public static void dispatch(CuratorHelper helper, String id, String[] f) throws Exception {
        switch (f[1]) {
            case "leader.latch": {
                CuratorHelper.arity(f, 5);
                String h = f[2];
                LeaderLatch latch = new LeaderLatch(helper.client(), f[3], f[4]);
                if (LATCHES.putIfAbsent(h, latch) != null || SELECTORS.containsKey(h)) {
                    throw new IllegalArgumentException("handle " + h + " already defined");
                }
                latch.addListener(new LeaderLatchListener() {
                    @Override
                    public void isLeader() {
                        CuratorHelper.emit(CuratorHelper.now(), id, "LEADER", h);
                    }

                    @Override
                    public void notLeader() {
                        CuratorHelper.emit(CuratorHelper.now(), id, "NOT_LEADER", h);
                    }
                });
                latch.start();
                CuratorHelper.emit(CuratorHelper.now(), id, "OK");
                break;
            }
            case "leader.await": {
                CuratorHelper.arity(f, 4);
                String h = f[2];
                LeaderLatch latch = latch(h);
                long ms = Long.parseLong(f[3]);
                POOL.execute(() -> {
                    try {
                        boolean led = latch.await(ms, TimeUnit.MILLISECONDS);
                        CuratorHelper.emit(CuratorHelper.now(), id, "AWAITED", h, Boolean.toString(led));
                    } catch (Exception e) {
                        CuratorHelper.error(id, e);
                    }
                });
                break;
            }
            case "leader.selector": {
                CuratorHelper.arity(f, 5);
                String h = f[2];
                Selected s = new Selected();
                if (SELECTORS.putIfAbsent(h, s) != null || LATCHES.containsKey(h)) {
                    throw new IllegalArgumentException("handle " + h + " already defined");
                }
                s.selector = new LeaderSelector(helper.client(), f[3], new LeaderSelectorListenerAdapter() {
                    @Override
                    public void takeLeadership(CuratorFramework client) throws Exception {
                        CuratorHelper.emit(CuratorHelper.now(), id, "TAKEN", h);
                        try {
                            s.yields.acquire();
                        } catch (InterruptedException e) {
                            CuratorHelper.emit(CuratorHelper.now(), id, "INTERRUPTED", h);
                            throw e;
                        }
                        CuratorHelper.emit(CuratorHelper.now(), id, "YIELDED", h);
                    }
                });
                s.selector.setId(f[4]);
                s.selector.autoRequeue();
                s.selector.start();
                CuratorHelper.emit(CuratorHelper.now(), id, "OK");
                break;
            }
            case "leader.yield": {
                CuratorHelper.arity(f, 3);
                selected(f[2]).yields.release();
                CuratorHelper.emit(CuratorHelper.now(), id, "OK");
                break;
            }
            case "leader.participants": {
                CuratorHelper.arity(f, 3);
                String h = f[2];
                POOL.execute(() -> {
                    try {
                        LeaderLatch latch = LATCHES.get(h);
                        Collection<Participant> ps = latch != null ? latch.getParticipants()
                                : selected(h).selector.getParticipants();
                        List<String> out = new ArrayList<>();
                        for (Participant p : ps) {
                            out.add(p.getId() + ":" + p.isLeader());
                        }
                        CuratorHelper.emit(CuratorHelper.now(), id, "PARTICIPANTS", h,
                                out.isEmpty() ? "-" : String.join(",", out));
                    } catch (Exception e) {
                        CuratorHelper.error(id, e);
                    }
                });
                break;
            }
            case "leader.close": {
                CuratorHelper.arity(f, 4);
                String h = f[2];
                LeaderLatch latch = LATCHES.remove(h);
                if (latch != null) {
                    latch.close(f[3].equals("notify") ? LeaderLatch.CloseMode.NOTIFY_LEADER : LeaderLatch.CloseMode.SILENT);
                } else {
                    Selected s = SELECTORS.remove(h);
                    if (s == null) {
                        throw new IllegalArgumentException("no leader handle " + h);
                    }
                    s.selector.close();
                }
                CuratorHelper.emit(CuratorHelper.now(), id, "CLOSED", h);
                break;
            }
            default:
                throw new IllegalArgumentException("unknown verb " + f[1]);
        }
    }

    private static LeaderLatch latch(String h) {
        LeaderLatch l = LATCHES.get(h);
        if (l == null) {
            throw new IllegalArgumentException("no latch handle " + h);
        }
        return l;
    }

    private static Selected selected(String h) {
        Selected s = SELECTORS.get(h);
        if (s == null) {
            throw new IllegalArgumentException("no selector handle " + h);
        }
        return s;
    }
}
