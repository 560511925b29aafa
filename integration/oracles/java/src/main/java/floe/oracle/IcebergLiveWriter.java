package floe.oracle;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * A live writer for the live-writer tests: commits through a catalog every `--interval-ms` for `--seconds`,
 * as a streaming job would, and keeps its own record of the rows it wrote. Each round is one commit of
 * one of: an append of new keys; a Flink-style upsert (equality delete of the keys + the new rows); a
 * Spark-style merge-on-read delete (a scan, then position deletes — v2 Parquet files, v3 deletion vectors —
 * against the data files holding the keys, validated as Spark validates them: the data files still exist
 * and no delete was added to them since the scan). A validation failure (a concurrent rewrite removed a
 * data file the delete names) retries the round on a fresh scan, at most 5 times.
 *
 * <p>usage: java -cp floe-oracle.jar:lib/* floe.oracle.IcebergLiveWriter --catalog jdbc:sqlite:FILE
 * --warehouse DIR --table ns.t [--catalog-name live] [--format-version 2] [--seconds 60]
 * [--interval-ms 1000] [--seed 1] [--ready FILE]
 *
 * <p>Prints one JSON object at the end: commits, attempts (rounds tried), validationRetries, failures (each
 * with the round kind and the exception), and rows (the writer's own record, sorted by id).
 */
public final class IcebergLiveWriter {
  private static final int PARTS = 2;

  private final Table table;
  private final int formatVersion;
  private final Random rnd;
  private final TreeMap<Long, String[]> model = new TreeMap<>(); // id → {part, v}
  private long nextId = 0;
  private long fileCounter = 0;
  private int round = 0;

  private IcebergLiveWriter(Table table, int formatVersion, long seed) {
    this.table = table;
    this.formatVersion = formatVersion;
    this.rnd = new Random(seed);
  }

  public static void main(String[] argv) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (int i = 0; i + 1 < argv.length; i += 2) a.put(argv[i].replaceFirst("^--", ""), argv[i + 1]);
    Catalog catalog =
        CatalogOracle.open(a.get("catalog"), a.get("warehouse"), a.getOrDefault("catalog-name", "live"));
    int fv = Integer.parseInt(a.getOrDefault("format-version", "2"));
    Schema schema =
        new Schema(
            List.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.required(2, "part", Types.IntegerType.get()),
                Types.NestedField.optional(3, "v", Types.StringType.get())),
            Set.of(1, 2));
    Map<String, String> props = new HashMap<>();
    props.put(TableProperties.FORMAT_VERSION, Integer.toString(fv));
    props.put(TableProperties.DELETE_MODE, "merge-on-read");
    props.put(TableProperties.UPDATE_MODE, "merge-on-read");
    props.put(TableProperties.COMMIT_NUM_RETRIES, "20");
    props.put(TableProperties.COMMIT_MIN_RETRY_WAIT_MS, "20");
    props.put(TableProperties.COMMIT_MAX_RETRY_WAIT_MS, "500");
    Table table =
        CatalogOracle.create(
            catalog,
            a.get("table"),
            schema,
            PartitionSpec.builderFor(schema).identity("part").build(),
            props);
    IcebergLiveWriter w = new IcebergLiveWriter(table, fv, Long.parseLong(a.getOrDefault("seed", "1")));
    w.run(
        Long.parseLong(a.getOrDefault("seconds", "60")) * 1000,
        Long.parseLong(a.getOrDefault("interval-ms", "1000")),
        a.get("ready"));
    CatalogOracle.close(catalog);
  }

  private void run(long durationMs, long intervalMs, String readyFile) throws Exception {
    int commits = 0;
    int attempts = 0;
    int validationRetries = 0;
    ArrayNode failures = Canon.nodes().arrayNode();
    // a first append so that the other kinds have rows to work on; then the test may start floe
    append(40);
    commits++;
    attempts++;
    if (readyFile != null) new File(readyFile).createNewFile();
    long end = System.currentTimeMillis() + durationMs;
    while (System.currentTimeMillis() < end) {
      long t0 = System.currentTimeMillis();
      String kind = kindOf(round++);
      attempts++;
      for (int tries = 0; ; tries++) {
        try {
          table.refresh();
          switch (kind) {
            case "append":
              append(10 + rnd.nextInt(20));
              break;
            case "upsert":
              upsert(3 + rnd.nextInt(5));
              break;
            default:
              deletePositions(1 + rnd.nextInt(4));
          }
          commits++;
          break;
        } catch (ValidationException e) {
          // a concurrent commit removed a data file this delete names: plan the delete again
          if (tries < 5) {
            validationRetries++;
            continue;
          }
          failures.add(failure(kind, e));
          break;
        } catch (CommitFailedException e) {
          failures.add(failure(kind, e));
          break;
        } catch (RuntimeException e) {
          failures.add(failure(kind, e));
          break;
        }
      }
      long sleep = intervalMs - (System.currentTimeMillis() - t0);
      if (sleep > 0) Thread.sleep(sleep);
    }
    ObjectNode out = Canon.nodes().objectNode();
    out.put("commits", commits);
    out.put("attempts", attempts);
    out.put("validationRetries", validationRetries);
    out.set("failures", failures);
    ArrayNode rows = out.putArray("rows");
    for (Map.Entry<Long, String[]> e : model.entrySet()) {
      ObjectNode r = rows.addObject();
      r.put("id", Long.toString(e.getKey()));
      r.put("part", e.getValue()[0]);
      r.put("v", e.getValue()[1]);
    }
    System.out.println(Canon.JSON.writeValueAsString(out));
  }

  private static String kindOf(int round) {
    switch (round % 4) {
      case 0:
      case 2:
        return "append";
      case 1:
        return "upsert";
      default:
        return "delete";
    }
  }

  private static ObjectNode failure(String kind, Throwable e) {
    ObjectNode f = Canon.nodes().objectNode();
    f.put("kind", kind);
    f.put("error", e.getClass().getName() + ": " + e.getMessage());
    Throwable c = e.getCause();
    if (c != null) f.put("cause", c.getClass().getName() + ": " + c.getMessage());
    return f;
  }

  // ---------------------------------------------------------------- rounds

  private Record record(long id, int part, String v) {
    GenericRecord r = GenericRecord.create(table.schema());
    r.setField("id", id);
    r.setField("part", part);
    r.setField("v", v);
    return r;
  }

  private void append(int n) throws IOException {
    List<Record> rows = new ArrayList<>();
    Map<Long, String[]> staged = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      long id = nextId++;
      int part = (int) (id % PARTS);
      String v = "a" + round + "-" + id;
      rows.add(record(id, part, v));
      staged.put(id, new String[] {Integer.toString(part), v});
    }
    org.apache.iceberg.AppendFiles append = table.newAppend();
    for (DataFile f : writeData(rows)) append.appendFile(f);
    append.commit();
    model.putAll(staged);
  }

  private List<Long> pickLive(int n) {
    List<Long> keys = new ArrayList<>(model.keySet());
    TreeSet<Long> picked = new TreeSet<>();
    while (picked.size() < Math.min(n, keys.size())) picked.add(keys.get(rnd.nextInt(keys.size())));
    return new ArrayList<>(picked);
  }

  /** Equality delete of the keys and their new rows in one commit (Flink's upsert). */
  private void upsert(int n) throws IOException {
    List<Record> rows = new ArrayList<>();
    Map<Long, String[]> staged = new TreeMap<>();
    for (long id : pickLive(n)) {
      int part = Integer.parseInt(model.get(id)[0]);
      String v = "u" + round + "-" + id;
      rows.add(record(id, part, v));
      staged.put(id, new String[] {Integer.toString(part), v});
    }
    if (rows.isEmpty()) return;
    RowDelta delta = table.newRowDelta();
    for (DeleteFile d : writeEqDeletes(rows)) delta.addDeletes(d);
    for (DataFile f : writeData(rows)) delta.addRows(f);
    delta.commit();
    model.putAll(staged);
  }

  /**
   * Spark's merge-on-read DELETE: scan, position deletes of the rows holding the keys, validated from the
   * scan's snapshot that every data file named still exists and got no new delete meanwhile.
   */
  private void deletePositions(int n) throws IOException {
    Set<Long> ids = new TreeSet<>(pickLive(n));
    if (ids.isEmpty()) return;
    Snapshot scanned = table.currentSnapshot();
    Schema schema = table.schema();
    Map<String, List<Long>> hits = new TreeMap<>();
    Map<String, FileScanTask> taskByPath = new HashMap<>();
    BaseDeleteLoader loader = new BaseDeleteLoader(df -> table.io().newInputFile(df));
    try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(scanned.snapshotId()).planFiles()) {
      for (FileScanTask task : tasks) {
        String path = task.file().location();
        taskByPath.put(path, task);
        // rows already deleted stay deleted: only live rows are hit (as a reader would find them)
        PositionDeleteIndex deleted = loader.loadPositionDeletes(positional(task), path);
        Set<Long> eqDeleted = eqDeletedIds(task);
        try (CloseableIterable<Record> rows =
            Parquet.read(table.io().newInputFile(path))
                .project(schema)
                .createReaderFunc(fs -> GenericParquetReaders.buildReader(schema, fs))
                .build()) {
          long pos = 0;
          for (Record r : rows) {
            long id = (Long) r.getField("id");
            if (ids.contains(id) && !deleted.isDeleted(pos) && !eqDeleted.contains(id))
              hits.computeIfAbsent(path, p -> new ArrayList<>()).add(pos);
            pos++;
          }
        }
      }
    }
    if (hits.isEmpty()) throw new IllegalStateException("delete round found none of its live keys " + ids);
    RowDelta delta = table.newRowDelta();
    delta.validateFromSnapshot(scanned.snapshotId());
    delta.validateDataFilesExist(hits.keySet());
    delta.validateDeletedFiles();
    delta.validateNoConflictingDeleteFiles();
    if (formatVersion >= 3) {
      BaseDVFileWriter dvs =
          new BaseDVFileWriter(
              files(FileFormat.PUFFIN),
              path -> {
                List<DeleteFile> existing = new ArrayList<>();
                for (DeleteFile d : taskByPath.get(path).deletes())
                  if (d.format() == FileFormat.PUFFIN) existing.add(d);
                return existing.isEmpty() ? null : loader.loadPositionDeletes(existing, path);
              });
      try (BaseDVFileWriter closing = dvs) {
        for (Map.Entry<String, List<Long>> e : hits.entrySet()) {
          DataFile f = taskByPath.get(e.getKey()).file();
          PartitionSpec spec = table.specs().get(f.specId());
          for (long p : e.getValue()) closing.delete(e.getKey(), p, spec, f.partition());
        }
      }
      DeleteWriteResult res = dvs.result();
      res.deleteFiles().forEach(delta::addDeletes);
      res.rewrittenDeleteFiles().forEach(delta::removeDeletes);
    } else {
      Map<String, List<String>> byPartition = new TreeMap<>();
      for (String path : hits.keySet()) {
        DataFile f = taskByPath.get(path).file();
        byPartition.computeIfAbsent(f.specId() + "|" + f.partition(), k -> new ArrayList<>()).add(path);
      }
      for (List<String> paths : byPartition.values()) {
        DataFile first = taskByPath.get(paths.get(0)).file();
        Map<String, List<Long>> group = new LinkedHashMap<>();
        for (String path : paths) group.put(path, hits.get(path));
        delta.addDeletes(
            IcebergFiles.writePositionDeletes(
                table,
                files(FileFormat.PARQUET),
                table.specs().get(first.specId()),
                first.partition(),
                group));
      }
    }
    delta.commit();
    for (long id : ids) model.remove(id);
  }

  private static List<DeleteFile> positional(FileScanTask task) {
    List<DeleteFile> out = new ArrayList<>();
    for (DeleteFile d : task.deletes())
      if (d.content() == org.apache.iceberg.FileContent.POSITION_DELETES) out.add(d);
    return out;
  }

  /** Keys removed from this task's file by its applicable equality deletes (they are on `id`, `part`). */
  private Set<Long> eqDeletedIds(FileScanTask task) throws IOException {
    Set<Long> out = new TreeSet<>();
    Schema keySchema = TypeUtil.select(table.schema(), Set.of(1, 2));
    for (DeleteFile d : task.deletes()) {
      if (d.content() != org.apache.iceberg.FileContent.EQUALITY_DELETES) continue;
      try (CloseableIterable<Record> rows =
          Parquet.read(table.io().newInputFile(d.location()))
              .project(keySchema)
              .createReaderFunc(fs -> GenericParquetReaders.buildReader(keySchema, fs))
              .build()) {
        for (Record r : rows) out.add((Long) r.getField("id"));
      }
    }
    return out;
  }

  // ---------------------------------------------------------------- files

  private OutputFileFactory files(FileFormat format) {
    return OutputFileFactory.builderFor(table, 7, ++fileCounter).format(format).build();
  }

  private List<DataFile> writeData(List<Record> records) throws IOException {
    return IcebergFiles.writeData(table, files(FileFormat.PARQUET), records);
  }

  /** Equality deletes on (id, part), the live table's key. */
  private List<DeleteFile> writeEqDeletes(List<Record> rows) throws IOException {
    return IcebergFiles.writeEqDeletes(table, files(FileFormat.PARQUET), new int[] {1, 2}, rows);
  }
}
