// SecurityCommands adds authentication and ACL probes to CuratorHelper, for
// tests of what one identity may do to another's nodes. TLS itself is set by
// the ZooKeeper client's system properties (zookeeper.client.secure and the
// zookeeper.ssl.* key and trust stores), given when the helper starts; SASL
// by a JAAS file's Client section (java.security.auth.login.config and
// zookeeper.sasl.client=true); the ACL of the client's nodes by --acl (see
// aclProvider).
//
// Verbs:
//   security.addauth <scheme> <credentials>   add authentication to the current connection -> OK
//   security.op <read|write|delete> <path>     try the operation -> RESULT <op> <path> <OK|KeeperException code>

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.curator.framework.api.ACLProvider;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;

public final class SecurityCommands {
    private SecurityCommands() {}

    /**
     * The ACL provider of --acl "scheme:id,...": every node gets an entry with all permissions per
     * identity, as a service configured with {@code new ACL(Perms.ALL, new Id("sasl", user))} does.
     */
    static ACLProvider aclProvider(String spec) {
        List<ACL> acl = new ArrayList<>();
        for (String entry : spec.split(",")) {
            int colon = entry.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("--acl entry " + entry + " is not scheme:id");
            }
            acl.add(new ACL(ZooDefs.Perms.ALL, new Id(entry.substring(0, colon), entry.substring(colon + 1))));
        }
        return new ACLProvider() {
            @Override
            public List<ACL> getDefaultAcl() {
                return acl;
            }

            @Override
            public List<ACL> getAclForPath(String path) {
                return acl;
            }
        };
    }

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
