// SecurityCommands adds authentication and ACL probes to CuratorHelper, for
// tests of what one identity may do to another's nodes. TLS itself is set by
// the ZooKeeper client's system properties (zookeeper.client.secure and the
// zookeeper.ssl.* key and trust stores), given when the helper starts.
//
// Verbs:
//   security.addauth <scheme> <credentials>   add authentication to the current connection -> OK
//   security.op <read|write|delete> <path>     try the operation -> RESULT <op> <path> <OK|KeeperException code>

import java.nio.charset.StandardCharsets;

import org.apache.zookeeper.KeeperException;

public final class SecurityCommands {
    private SecurityCommands() {}

    public static void dispatch(CuratorHelper helper, String id, String[] f) throws Exception {
        switch (f[1]) {
            case "security.addauth": {
                CuratorHelper.arity(f, 4);
                helper.client().getZookeeperClient().getZooKeeper()
                        .addAuthInfo(f[2], f[3].getBytes(StandardCharsets.UTF_8));
                CuratorHelper.emit(CuratorHelper.now(), id, "OK");
                break;
            }
            case "security.op": {
                CuratorHelper.arity(f, 4);
                String result = "OK";
                try {
                    switch (f[2]) {
                        case "read": helper.client().getData().forPath(f[3]); break;
                        case "write": helper.client().setData().forPath(f[3], "probe".getBytes(StandardCharsets.UTF_8)); break;
                        case "delete": helper.client().delete().forPath(f[3]); break;
                        default: throw new IllegalArgumentException("unknown operation " + f[2]);
                    }
                } catch (KeeperException e) {
                    result = e.code().name();
                }
                CuratorHelper.emit(CuratorHelper.now(), id, "RESULT", f[2], f[3], result);
                break;
            }
            default:
                throw new IllegalArgumentException("unknown verb " + f[1]);
        }
    }
}
