// NodesCommands adds Curator's GroupMember and PersistentNode to CuratorHelper.
//
// Verbs (data is one field of printable text without spaces):
//   nodes.member <handle> <path> <id> <data>        start a GroupMember -> OK
//   nodes.members <handle>                          getCurrentMembers -> MEMBERS <handle> <id=data,...>
//   nodes.setdata <handle> <data>                   setThisData / setData -> OK
//   nodes.persistent <handle> <mode> <protected> <path> <data> <timeoutMs>
//                                                   start a PersistentNode and wait for its first create
//                                                   -> CREATED <handle> <actual path>
//   nodes.close <handle>                            close -> OK

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.recipes.nodes.GroupMember;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.zookeeper.CreateMode;

public final class NodesCommands {
    private static final Map<String, GroupMember> MEMBERS = new ConcurrentHashMap<>();
    private static final Map<String, PersistentNode> NODES = new ConcurrentHashMap<>();

    private NodesCommands() {}

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    public static void dispatch(CuratorHelper helper, String id, String[] f) throws Exception {
        switch (f[1]) {
            case "nodes.member": {
                CuratorHelper.arity(f, 6);
                GroupMember m = new GroupMember(helper.client(), f[3], f[4], bytes(f[5]));
                if (MEMBERS.putIfAbsent(f[2], m) != null) {
                    throw new IllegalArgumentException("handle " + f[2] + " already defined");
                }
                m.start();
                CuratorHelper.emit(CuratorHelper.now(), id, "OK");
                break;
            }
            case "nodes.members": {
                CuratorHelper.arity(f, 3);
                StringBuilder sb = new StringBuilder();
                for (Map.Entry<String, byte[]> e : new TreeMap<>(member(f[2]).getCurrentMembers()).entrySet()) {
                    if (sb.length() > 0) {
                        sb.append(',');
                    }
                    sb.append(e.getKey()).append('=').append(new String(e.getValue(), StandardCharsets.UTF_8));
                }
                CuratorHelper.emit(CuratorHelper.now(), id, "MEMBERS", f[2], sb.length() == 0 ? "-" : sb.toString());
                break;
            }
            case "nodes.setdata": {
                CuratorHelper.arity(f, 4);
                if (MEMBERS.containsKey(f[2])) {
                    setThisData(member(f[2]), bytes(f[3]));
                } else {
                    node(f[2]).setData(bytes(f[3]));
                }
                CuratorHelper.emit(CuratorHelper.now(), id, "OK");
                break;
            }
            case "nodes.persistent": {
                CuratorHelper.arity(f, 8);
                PersistentNode n = new PersistentNode(helper.client(), CreateMode.valueOf(f[3]), Boolean.parseBoolean(f[4]), f[5], bytes(f[6]));
                if (NODES.putIfAbsent(f[2], n) != null) {
                    throw new IllegalArgumentException("handle " + f[2] + " already defined");
                }
                n.start();
                if (!n.waitForInitialCreate(Long.parseLong(f[7]), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("no initial create of " + f[5] + " within " + f[7] + " ms");
                }
                CuratorHelper.emit(CuratorHelper.now(), id, "CREATED", f[2], n.getActualPath());
                break;
            }
            case "nodes.close": {
                CuratorHelper.arity(f, 3);
                GroupMember m = MEMBERS.remove(f[2]);
                if (m != null) {
                    m.close();
                } else {
                    PersistentNode n = NODES.remove(f[2]);
                    if (n == null) {
                        throw new IllegalArgumentException("no handle " + f[2]);
                    }
                    n.close();
                }
                CuratorHelper.emit(CuratorHelper.now(), id, "OK");
                break;
            }
            default:
                throw new IllegalArgumentException("unknown verb " + f[1]);
        }
    }

    /**
     * GroupMember.setThisData refuses data until its node's first create has been processed, which
     * Curator does not let a caller wait for: try again, for at most 10 s.
     */
    private static void setThisData(GroupMember m, byte[] data) throws Exception {
        for (int i = 0; ; i++) {
            try {
                m.setThisData(data);
                return;
            } catch (IllegalStateException e) {
                if (i == 200) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }

    private static GroupMember member(String handle) {
        GroupMember m = MEMBERS.get(handle);
        if (m == null) {
            throw new IllegalArgumentException("no member handle " + handle);
        }
        return m;
    }

    private static PersistentNode node(String handle) {
        PersistentNode n = NODES.get(handle);
        if (n == null) {
            throw new IllegalArgumentException("no node handle " + handle);
        }
        return n;
    }
}
