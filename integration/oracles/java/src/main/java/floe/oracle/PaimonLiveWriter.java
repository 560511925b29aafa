package floe.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

/**
 * A live writer for floe's live-writer tests: a streaming job (like a Flink sink with a checkpoint every
 * {@code intervalMs}) committing through Paimon's JDBC catalog with {@code lock.enabled=true} for
 * {@code seconds}, with {@code write-only=true} (floe is the dedicated compaction job). It keeps its own
 * record of what the table must hold and writes it with its commit tally to {@code out}.
 *
 * <p>Kinds: {@code pk-dv} — primary-key table (id) with deletion vectors, 2 buckets; each commit inserts
 * 20 new keys, updates 5 and deletes 3 live ones. {@code append} — bucket-unaware append table
 * partitioned by p; each commit appends 30 rows. {@code append-dv} — the same table with deletion
 * vectors; after each append a row-level DELETE of 3 earlier rows (PaimonAppendDeleteOracle, as Spark's
 * DELETE: DV index entries only) commits through the same catalog; a DELETE that loses a commit race is
 * planned and committed again (as Spark retries a failed job), counted in {@code deleteRetries}.
 *
 * <p>Run: {@code java -cp floe-oracle.jar:lib/* floe.oracle.PaimonLiveWriter SPEC.json}, spec {uri,
 * warehouse, database, table, kind, seconds, intervalMs, out, seed?}. Prints one line per commit
 * ({@code commit N ok|failed: ...}) so a test can see progress.
 */
public final class PaimonLiveWriter {
  private PaimonLiveWriter() {}

  public static void main(String[] args) throws Exception {
    ObjectMapper mapper = new ObjectMapper();
    JsonNode spec = mapper.readTree(new File(args[0]));
    String kind = spec.get("kind").asText();
    long seconds = spec.get("seconds").asLong();
    long intervalMs = spec.get("intervalMs").asLong();
    Random random = new Random(spec.has("seed") ? spec.get("seed").asLong() : 7L);

    Options options = new Options();
    options.set("metastore", "jdbc");
    options.set("uri", spec.get("uri").asText());
    options.set("warehouse", spec.get("warehouse").asText());
    options.set("lock.enabled", "true");
    Identifier id = Identifier.create(spec.get("database").asText(), spec.get("table").asText());
    ObjectNode result = mapper.createObjectNode();
    ArrayNode errors = result.putArray("errors");
    int commits = 0;
    int failures = 0;
    int deletes = 0;
    int deleteRetries = 0;
    boolean appendDv = kind.equals("append-dv");
    Map<Long, String> live = new TreeMap<>(); // pk-dv: id -> v
    List<Long> appended = new ArrayList<>(); // append: ids
    long nextId = 1;

    try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(options))) {
      catalog.createDatabase(id.getDatabaseName(), true);
      Schema.Builder schema = Schema.newBuilder();
      if (kind.equals("pk-dv")) {
        schema
            .column("id", DataTypes.BIGINT().notNull())
            .column("v", DataTypes.STRING())
            .primaryKey("id")
            .option("bucket", "2")
            .option("deletion-vectors.enabled", "true");
      } else {
        schema
            .column("id", DataTypes.BIGINT())
            .column("p", DataTypes.INT())
            .column("v", DataTypes.STRING())
            .partitionKeys("p")
            .option("bucket", "-1");
        if (appendDv) schema.option("deletion-vectors.enabled", "true");
      }
      schema.option("write-only", "true");
      catalog.createTable(id, schema.build(), true);
      Table table = catalog.getTable(id);
      StreamWriteBuilder builder = table.newStreamWriteBuilder().withCommitUser("live-writer-java");
      long deadline = System.currentTimeMillis() + seconds * 1000;
      long identifier = 0;
      try (StreamTableWrite write = builder.newWrite();
          StreamTableCommit commit = builder.newCommit()) {
        while (System.currentTimeMillis() < deadline) {
          long started = System.currentTimeMillis();
          identifier++;
          Map<Long, String> pending = new TreeMap<>(live);
          List<Long> pendingAppends = new ArrayList<>();
          if (kind.equals("pk-dv")) {
            List<Long> keys = new ArrayList<>(live.keySet());
            for (int i = 0; i < 5 && !keys.isEmpty(); i++) {
              long k = keys.get(random.nextInt(keys.size()));
              String v = "u" + identifier + "-" + k;
              write.write(GenericRow.of(k, BinaryString.fromString(v)));
              pending.put(k, v);
            }
            for (int i = 0; i < 3 && !keys.isEmpty(); i++) {
              long k = keys.remove(random.nextInt(keys.size()));
              if (!pending.containsKey(k)) continue;
              write.write(GenericRow.ofKind(RowKind.DELETE, k, BinaryString.fromString(pending.get(k))));
              pending.remove(k);
            }
            for (int i = 0; i < 20; i++) {
              long k = nextId++;
              String v = "i" + identifier + "-" + k;
              write.write(GenericRow.of(k, BinaryString.fromString(v)));
              pending.put(k, v);
            }
          } else {
            for (int i = 0; i < 30; i++) {
              long k = nextId++;
              write.write(GenericRow.of(k, (int) (k % 3), BinaryString.fromString("a" + identifier)));
              pendingAppends.add(k);
            }
          }
          try {
            List<CommitMessage> messages = write.prepareCommit(false, identifier);
            commit.commit(identifier, messages);
            commits++;
            live = pending;
            appended.addAll(pendingAppends);
            System.out.println("commit " + identifier + " ok");
            if (appendDv && appended.size() > 30) {
              deleteRetries += deleteSome(catalog, spec, appended, random);
              deletes++;
            }
          } catch (Exception e) {
            failures++;
            errors.add(identifier + ": " + e);
            System.out.println("commit " + identifier + " failed: " + e);
            throw e; // the writer's record would no longer be exact: stop, the test reports it
          }
          System.out.flush();
          long sleep = intervalMs - (System.currentTimeMillis() - started);
          if (sleep > 0) Thread.sleep(sleep);
        }
      }
    } catch (Exception e) {
      if (failures == 0) {
        failures++;
        errors.add("writer: " + e);
      }
    } finally {
      result.put("commits", commits);
      result.put("failures", failures);
      result.put("deletes", deletes);
      result.put("deleteRetries", deleteRetries);
      ArrayNode rows = result.putArray("rows");
      if (kind.equals("pk-dv")) {
        for (Map.Entry<Long, String> e : live.entrySet()) {
          ObjectNode r = rows.addObject();
          r.put("id", String.valueOf(e.getKey()));
          r.put("v", e.getValue());
        }
      } else {
        for (long k : appended) {
          ObjectNode r = rows.addObject();
          r.put("id", String.valueOf(k));
          r.put("p", (int) (k % 3));
        }
      }
      mapper.writeValue(new File(spec.get("out").asText()), result);
    }
  }

  /**
   * append-dv: deletes 3 random appended rows by id (DV index entries only), removing them from the record
   * once committed. A DELETE whose commit conflicts (another commit replaced a file it deletes from) is
   * planned again on the newest snapshot, up to 10 times; returns the retries. A failure after that throws.
   */
  private static int deleteSome(Catalog catalog, JsonNode spec, List<Long> appended, Random random)
      throws Exception {
    List<Long> victims = new ArrayList<>();
    for (int i = 0; i < 3; i++) victims.add(appended.get(random.nextInt(appended.size())));
    ObjectNode del = JsonNodeFactory.instance.objectNode();
    del.put("database", spec.get("database").asText());
    del.put("table", spec.get("table").asText());
    del.put("column", "id");
    ArrayNode values = del.putArray("values");
    for (long v : victims) values.add(String.valueOf(v));
    for (int attempt = 0; ; attempt++) {
      try {
        PaimonAppendDeleteOracle.delete(catalog, del);
        appended.removeAll(victims);
        System.out.println("delete " + victims + " ok" + (attempt > 0 ? " after " + attempt + " retries" : ""));
        return attempt;
      } catch (Exception e) {
        System.out.println("delete " + victims + " conflict: " + e);
        if (attempt >= 10) throw e;
      }
    }
  }
}
