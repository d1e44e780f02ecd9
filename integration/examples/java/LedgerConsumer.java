// An example Java consumer of the paysession connector's outcome topics.
//
// It reads the command results and session states with isolation.level=read_committed (the
// connector writes them in Kafka transactions) in both forms the connector writes:
//   - Avro single-object encoding (no schema registry): Apache Avro's BinaryMessageDecoder with
//     the .avsc files of schemas/, every released version added so that older records resolve;
//   - the Confluent wire format (PAYSESSION_REGISTRY_URL set): Apicurio Registry's
//     AvroKafkaDeserializer (Maven Central), which fetches the writer schema by id.
// For each expected idempotency key it waits for the result and the session state of its session,
// prints them as one JSON line and checks them: status accepted, the payout's amount, the card's
// last 4 digits and never a full card number. Exit status 0 when every check passed.
//
// Run (Java 17+, dependencies from pom.xml in <libs>):
//   java -cp '<libs>/*' LedgerConsumer.java
// with the environment variables read in main below.
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.stream.Stream;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

public class LedgerConsumer {
    /** Decodes one record value of a topic into a GenericRecord. */
    interface ValueDecoder {
        GenericRecord decode(String topic, byte[] value) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        String brokers = env("BROKERS");
        Path schemas = Path.of(env("SCHEMAS_DIR"));
        String last4 = env("EXPECT_LAST4");
        int failures = 0;

        // Single-object records: decoders with the current schema, resolving older versions too.
        Map<String, BinaryMessageDecoder<GenericRecord>> soe = new HashMap<>();
        for (String name : List.of("command_result", "session_state")) {
            soe.put(name, singleObjectDecoder(schemas, name));
        }
        String soeResults = env("SOE_TOPIC_COMMAND_RESULTS");
        failures += check("single-object", brokers, env("SOE_TOPIC_COMMAND_RESULTS"), env("SOE_TOPIC_SESSIONS"),
                keys(env("SOE_EXPECT")), last4, (topic, value) ->
                        soe.get(topic.equals(soeResults) ? "command_result" : "session_state").decode(value));

        // Confluent wire format through the registry: Apicurio's deserializer.
        String registry = System.getenv("APICURIO_URL");
        if (registry != null && !registry.isEmpty()) {
            Deserializer<Object> serde = registryDeserializer(registry);
            failures += check("confluent", brokers, env("REGISTRY_TOPIC_COMMAND_RESULTS"), env("REGISTRY_TOPIC_SESSIONS"),
                    keys(env("REGISTRY_EXPECT")), last4, (topic, value) -> (GenericRecord) serde.deserialize(topic, value));
        }
        System.out.println("{\"java\":\"done\",\"failures\":" + failures + "}");
        System.exit(failures == 0 ? 0 : 1);
    }

    /** A BinaryMessageDecoder for schemas/NAME.avsc that also knows schemas/history/NAME/v*.avsc. */
    static BinaryMessageDecoder<GenericRecord> singleObjectDecoder(Path dir, String name) throws Exception {
        Schema current = new Schema.Parser().parse(dir.resolve(name + ".avsc").toFile());
        BinaryMessageDecoder<GenericRecord> dec = new BinaryMessageDecoder<>(GenericData.get(), current);
        Path history = dir.resolve("history").resolve(name);
        if (Files.isDirectory(history)) {
            try (Stream<Path> files = Files.list(history)) {
                for (Path p : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".avsc"))::iterator) {
                    dec.addSchema(new Schema.Parser().parse(p.toFile()));
                }
            }
        }
        return dec;
    }

    /** Apicurio's Avro deserializer: the 4-byte id after the 0x00 magic byte is the registry's content id. */
    static Deserializer<Object> registryDeserializer(String apicurioBase) throws Exception {
        Map<String, Object> cfg = new HashMap<>();
        cfg.put("apicurio.registry.url", apicurioBase + "/apis/registry/v3");
        cfg.put("apicurio.registry.use-id", "contentId");
        @SuppressWarnings("unchecked")
        Deserializer<Object> d = (Deserializer<Object>) Class
                .forName("io.apicurio.registry.serde.avro.AvroKafkaDeserializer").getDeclaredConstructor().newInstance();
        d.configure(cfg, false);
        return d;
    }

    /** Reads results and sessions until every key has both, then checks them; returns the failures. */
    static int check(String format, String brokers, String resultsTopic, String sessionsTopic, List<String> expect,
            String last4, ValueDecoder decoder) throws Exception {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "java-ledger-" + UUID.randomUUID());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        Map<String, GenericRecord> results = new HashMap<>();
        Map<String, GenericRecord> sessions = new HashMap<>(); // session id -> newest state read
        Instant deadline = Instant.now().plusSeconds(90);
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(resultsTopic, sessionsTopic));
            while (!complete(expect, results, sessions) && Instant.now().isBefore(deadline)) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    GenericRecord v = decoder.decode(r.topic(), r.value());
                    if (r.topic().equals(resultsTopic)) {
                        results.put(r.key(), v);
                    } else {
                        GenericRecord held = sessions.get(r.key());
                        if (held == null || newer(v, held)) {
                            sessions.put(r.key(), v);
                        }
                    }
                }
            }
        }
        int failures = 0;
        for (String key : expect) {
            GenericRecord result = results.get(key);
            GenericRecord state = result == null ? null : sessions.get(str(result.get("session_id")));
            if (result == null || state == null) {
                System.out.println("{\"format\":\"" + format + "\",\"key\":\"" + key + "\",\"error\":\"no result or session state\"}");
                failures++;
                continue;
            }
            GenericRecord session = (GenericRecord) state.get("session");
            GenericRecord op = (GenericRecord) ((List<?>) session.get("operations")).get(0);
            GenericRecord instrument = (GenericRecord) op.get("instrument");
            String line = String.format(
                    "{\"format\":\"%s\",\"key\":\"%s\",\"status\":\"%s\",\"session_id\":\"%s\",\"session_status\":\"%s\",\"amount\":%s,\"card_last4\":\"%s\"}",
                    format, key, str(result.get("status")), str(session.get("id")), str(session.get("status")),
                    op.get("amount"), instrument == null ? "" : str(instrument.get("card_last4")));
            System.out.println(line);
            if (!"accepted".equals(str(result.get("status"))) || instrument == null
                    || !last4.equals(str(instrument.get("card_last4"))) || (state.toString() + result).contains("4111111111111111")) {
                System.out.println("{\"format\":\"" + format + "\",\"key\":\"" + key + "\",\"error\":\"unexpected values\"}");
                failures++;
            }
        }
        return failures;
    }

    static boolean complete(List<String> expect, Map<String, GenericRecord> results, Map<String, GenericRecord> sessions) {
        for (String key : expect) {
            GenericRecord r = results.get(key);
            if (r == null || r.get("session_id") == null || !sessions.containsKey(str(r.get("session_id")))) {
                return false;
            }
        }
        return true;
    }

    /** The connector's order of two states of a session: updated_at, then the status rank. */
    static boolean newer(GenericRecord a, GenericRecord b) {
        GenericRecord sa = (GenericRecord) a.get("session"), sb = (GenericRecord) b.get("session");
        long ua = sa.get("updated_at") == null ? 0 : (Long) sa.get("updated_at");
        long ub = sb.get("updated_at") == null ? 0 : (Long) sb.get("updated_at");
        if (ua != ub) {
            return ua > ub;
        }
        return rank(str(sa.get("status"))) > rank(str(sb.get("status")));
    }

    static int rank(String status) {
        switch (status.toLowerCase()) {
            case "created": return 1;
            case "pending": return 3;
            case "accepted": case "canceled": case "cancelled": case "succeeded": case "failed":
            case "declined": case "rejected": case "expired": return 4;
            default: return 2;
        }
    }

    static String str(Object o) {
        return o == null ? null : o.toString();
    }

    static List<String> keys(String csv) {
        List<String> out = new ArrayList<>();
        for (String k : csv.split(",")) {
            if (!k.isBlank()) {
                out.add(k.trim());
            }
        }
        return out;
    }

    static String env(String name) {
        String v = System.getenv(name);
        if (v == null) {
            throw new IllegalArgumentException("environment variable " + name + " is required");
        }
        return v;
    }
}
