import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.HexFormat;
import javax.security.auth.x500.X500Principal;

// Prints, for each line of hex DER Name on standard input, the name as
// X500Principal.getName() renders it (RFC 2253), as ZooKeeper's x509
// authentication provider names a client.
public class X500Names {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        StringBuilder out = new StringBuilder();
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isEmpty()) {
                continue;
            }
            byte[] der = HexFormat.of().parseHex(line.trim());
            String name = new X500Principal(der).getName();
            out.append(HexFormat.of().formatHex(name.getBytes("UTF-8"))).append('\n');
        }
        System.out.print(out);
    }
}
