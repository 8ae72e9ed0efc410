// DiscoveryCommands adds Curator's service discovery (curator-x-discovery) to CuratorHelper.
//
// Instances carry a DiscoveryCommands$Meta payload ({"zone": ...}); JSON travels base64-encoded
// (events are split on spaces). An instance spec is:
//   <name> <id> <address> <port|-> <sslPort|-> <zone|-> <uriSpec|-> <registrationTimeUTC> <serviceType>
//
// Verbs:
//   discovery.start <handle> <basePath>        build and start a ServiceDiscovery<Meta> -> OK
//   discovery.register <handle> <spec...>      registerService -> OK
//   discovery.unregister <handle> <name> <id>  unregisterService -> OK
//   discovery.query <handle> <name>            queryForInstances -> INSTANCES <base64 JSON list of described instances>
//   discovery.provide <handle> <name> <count>  a started ServiceProvider (RoundRobin): count getInstance calls
//                                              -> PROVIDED <base64 JSON list of described instances, or nulls>
//   discovery.serialize <spec...>              JsonInstanceSerializer's bytes for the instance -> JSON <base64>
//   discovery.serializeEnabled <true|false> <spec...>
//                                              the same with the enabled field, written by the serializer's
//                                              non-compatible mode -> JSON <base64>
//   discovery.close <handle>                   close the ServiceDiscovery (unregisters) -> OK
//
// A described instance is {name, id, address, port, sslPort, payloadClass, zone, registrationTimeUTC,
// serviceType, uri (buildUriSpec()), enabled}.

import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.curator.x.discovery.ServiceDiscovery;
import org.apache.curator.x.discovery.ServiceDiscoveryBuilder;
import org.apache.curator.x.discovery.ServiceInstance;
import org.apache.curator.x.discovery.ServiceProvider;
import org.apache.curator.x.discovery.ServiceType;
import org.apache.curator.x.discovery.UriSpec;
import org.apache.curator.x.discovery.details.JsonInstanceSerializer;

public final class DiscoveryCommands {
    /** The payload class both languages write as "@class". */
    public static final class Meta {
        private String zone;

        public Meta() {}

        public Meta(String zone) {
            this.zone = zone;
        }

        public String getZone() {
            return zone;
        }

        public void setZone(String zone) {
            this.zone = zone;
        }
    }

    private static final Map<String, ServiceDiscovery<Meta>> HANDLES = new ConcurrentHashMap<>();
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private DiscoveryCommands() {}

    public static void dispatch(CuratorHelper helper, String id, String[] f) throws Exception {
        switch (f[1]) {
            case "discovery.start": {
                CuratorHelper.arity(f, 4);
                ServiceDiscovery<Meta> d = ServiceDiscoveryBuilder.builder(Meta.class)
                        .client(helper.client()).basePath(f[3]).build();
                d.start();
                if (HANDLES.putIfAbsent(f[2], d) != null) {
                    d.close();
                    throw new IllegalArgumentException("handle " + f[2] + " already defined");
                }
                CuratorHelper.emit(CuratorHelper.now(), id, "OK");
                break;
            }
            case "discovery.register": {
                CuratorHelper.arity(f, 12);
                handle(f[2]).registerService(instance(f, 3));
                CuratorHelper.emit(CuratorHelper.now(), id, "OK");
                break;
            }
            case "discovery.unregister": {
                CuratorHelper.arity(f, 5);
                ServiceDiscovery<Meta> d = handle(f[2]);
                d.unregisterService(d.queryForInstance(f[3], f[4]) != null
                        ? d.queryForInstance(f[3], f[4])
                        : ServiceInstance.<Meta>builder().name(f[3]).id(f[4]).build());
                CuratorHelper.emit(CuratorHelper.now(), id, "OK");
                break;
            }
            case "discovery.query": {
                CuratorHelper.arity(f, 4);
                List<Map<String, Object>> out = new ArrayList<>();
                for (ServiceInstance<Meta> i : handle(f[2]).queryForInstances(f[3])) {
                    out.add(describe(i));
                }
                CuratorHelper.emit(CuratorHelper.now(), id, "INSTANCES", encode(MAPPER.writeValueAsBytes(out)));
                break;
            }
            case "discovery.provide": {
                CuratorHelper.arity(f, 5);
                int count = Integer.parseInt(f[4]);
                List<Map<String, Object>> out = new ArrayList<>();
                try (ServiceProvider<Meta> p = handle(f[2]).serviceProviderBuilder().serviceName(f[3]).build()) {
                    p.start();
                    for (int n = 0; n < count; n++) {
                        ServiceInstance<Meta> i = p.getInstance();
                        out.add(i == null ? null : describe(i));
                    }
                }
                CuratorHelper.emit(CuratorHelper.now(), id, "PROVIDED", encode(MAPPER.writeValueAsBytes(out)));
                break;
            }
            case "discovery.serialize": {
                CuratorHelper.arity(f, 11);
                byte[] json = new JsonInstanceSerializer<>(Meta.class).serialize(instance(f, 2));
                CuratorHelper.emit(CuratorHelper.now(), id, "JSON", encode(json));
                break;
            }
            case "discovery.serializeEnabled": {
                CuratorHelper.arity(f, 12);
                ServiceInstance<Meta> i = instance(f, 3);
                ServiceInstance<Meta> withEnabled = new ServiceInstance<>(i.getName(), i.getId(), i.getAddress(),
                        i.getPort(), i.getSslPort(), i.getPayload(), i.getRegistrationTimeUTC(), i.getServiceType(),
                        i.getUriSpec(), Boolean.parseBoolean(f[2]));
                byte[] json = new JsonInstanceSerializer<>(Meta.class, false).serialize(withEnabled);
                CuratorHelper.emit(CuratorHelper.now(), id, "JSON", encode(json));
                break;
            }
            case "discovery.close": {
                CuratorHelper.arity(f, 3);
                ServiceDiscovery<Meta> d = HANDLES.remove(f[2]);
                if (d == null) {
                    throw new IllegalArgumentException("no discovery handle " + f[2]);
                }
                d.close();
                CuratorHelper.emit(CuratorHelper.now(), id, "OK");
                break;
            }
            default:
                throw new IllegalArgumentException("unknown verb " + f[1]);
        }
    }

    private static ServiceDiscovery<Meta> handle(String name) {
        ServiceDiscovery<Meta> d = HANDLES.get(name);
        if (d == null) {
            throw new IllegalArgumentException("no discovery handle " + name);
        }
        return d;
    }

    /** The instance described by the nine fields from f[at]. */
    private static ServiceInstance<Meta> instance(String[] f, int at) {
        return new ServiceInstance<>(f[at], f[at + 1], f[at + 2], optInt(f[at + 3]), optInt(f[at + 4]),
                "-".equals(f[at + 5]) ? null : new Meta(f[at + 5]),
                Long.parseLong(f[at + 7]), ServiceType.valueOf(f[at + 8]),
                "-".equals(f[at + 6]) ? null : new UriSpec(f[at + 6]));
    }

    private static Integer optInt(String s) {
        return "-".equals(s) ? null : Integer.valueOf(s);
    }

    private static Map<String, Object> describe(ServiceInstance<Meta> i) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", i.getName());
        m.put("id", i.getId());
        m.put("address", i.getAddress());
        m.put("port", i.getPort());
        m.put("sslPort", i.getSslPort());
        Object payload = i.getPayload();
        m.put("payloadClass", payload == null ? null : payload.getClass().getName());
        m.put("zone", payload instanceof Meta ? ((Meta) payload).getZone() : null);
        m.put("registrationTimeUTC", i.getRegistrationTimeUTC());
        m.put("serviceType", i.getServiceType() == null ? null : i.getServiceType().name());
        m.put("uri", i.buildUriSpec());
        m.put("enabled", i.isEnabled());
        return m;
    }

    private static String encode(byte[] b) {
        return Base64.getEncoder().encodeToString(b);
    }
}
