// CompressionCommands adds Curator's compression to CuratorHelper.
//
// Verbs (data is one field of printable text without spaces):
//   compression.create <path> <data>   create().compressed().creatingParentsIfNeeded() -> OK
//   compression.set <path> <data>      setData().compressed() -> OK
//   compression.get <path>             getData().decompressed() -> DATA <path> <data>
//   compression.compress <data>        GzipCompressionProvider.compress -> BYTES <hex>

import java.nio.charset.StandardCharsets;

import org.apache.curator.framework.imps.GzipCompressionProvider;

public final class CompressionCommands {
    private CompressionCommands() {}

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    public static void dispatch(CuratorHelper helper, String id, String[] f) throws Exception {
        switch (f[1]) {
            case "compression.create": {
                CuratorHelper.arity(f, 4);
                helper.client().create().compressed().creatingParentsIfNeeded().forPath(f[2], bytes(f[3]));
                CuratorHelper.emit(CuratorHelper.now(), id, "OK");
                break;
            }
            case "compression.set": {
                CuratorHelper.arity(f, 4);
                helper.client().setData().compressed().forPath(f[2], bytes(f[3]));
                CuratorHelper.emit(CuratorHelper.now(), id, "OK");
                break;
            }
            case "compression.get": {
                CuratorHelper.arity(f, 3);
                byte[] data = helper.client().getData().decompressed().forPath(f[2]);
                CuratorHelper.emit(CuratorHelper.now(), id, "DATA", f[2], new String(data, StandardCharsets.UTF_8));
                break;
            }
            case "compression.compress": {
                CuratorHelper.arity(f, 3);
                byte[] out = new GzipCompressionProvider().compress("/", bytes(f[2]));
                StringBuilder hex = new StringBuilder();
                for (byte b : out) {
                    hex.append(String.format("%02x", b & 0xff));
                }
                CuratorHelper.emit(CuratorHelper.now(), id, "BYTES", hex.toString());
                break;
            }
            default:
                throw new IllegalArgumentException("unknown verb " + f[1]);
        }
    }
}
