package floe.oracle;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;

/**
 * The streaming writer of the live benchmark (bench/live): a Flink-like job that commits through a catalog
 * every `--interval-ms` for `--seconds`, in one of two shapes taken from the simulator's seed scenarios
 * (src/core/simulate/presets.ts), scaled down:
 *
 * <ul>
 *   <li>{@code append}: each commit adds `--files-per-commit` small data files of `--rows-per-file` rows,
 *       spread over `--partitions` identity partitions (several parallel writers' checkpoint files);
 *   <li>{@code upsert}: a base table of `--base-rows` rows (one file per partition), then each commit
 *       replaces `--upsert-rows` existing keys per partition with an equality delete file and an insert
 *       file per partition (Flink's upsert).
 * </ul>
 *
 * <p>Commit conflicts are counted: the catalog's compare-and-swap losing to another committer (floe) is a
 * CommitFailedException inside Iceberg's own retry loop, seen here by wrapping the table's operations. A
 * commit that still fails after Iceberg's retries is a writer failure.
 *
 * <p>usage: java -cp floe-oracle.jar:lib/* floe.oracle.IcebergStreamWriter --catalog jdbc:… --warehouse DIR
 * --table ns.t --mode append|upsert [--partitions 4] [--files-per-commit 8] [--rows-per-file 200]
 * [--base-rows 40000] [--upsert-rows 50] [--seconds 180] [--interval-ms 3000] [--ready FILE] [--log FILE]
 *
 * <p>`--log` gets one JSON line per commit (wall time, duration, files and bytes added). At the end one JSON
 * object is printed: commits, attempts, conflicts, failures, expectedRows, the bytes written and the base.
 */
public final class IcebergStreamWriter {
  private final Table table;
  private final String mode;
  private final int partitions;
  private final Random rnd = new Random(7);
  private final List<List<Long>> liveKeys = new ArrayList<>(); // per partition, the ids of live rows
  private long nextId = 0;
  private long fileCounter = 0;
  private int round = 0;
  private long bytesData = 0;
  private long bytesDeletes = 0;
  private long baseBytes = 0;
  private int baseFiles = 0;
  private final String pad;

  private IcebergStreamWriter(Table table, String mode, int partitions, int valueBytes) {
    this.table = table;
    this.mode = mode;
    this.partitions = partitions;
    this.pad = "x".repeat(Math.max(0, valueBytes));
    for (int p = 0; p < partitions; p++) liveKeys.add(new ArrayList<>());
  }

  public static void main(String[] argv) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (int i = 0; i + 1 < argv.length; i += 2) a.put(argv[i].replaceFirst("^--", ""), argv[i + 1]);
    String mode = a.getOrDefault("mode", "append");
    if (!mode.equals("append") && !mode.equals("upsert"))
      throw new IllegalArgumentException("--mode must be append or upsert, got " + mode);
    Catalog catalog =
        CatalogOracle.open(a.get("catalog"), a.get("warehouse"), a.getOrDefault("catalog-name", "oracle"));
    Schema schema =
        new Schema(
            List.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.required(2, "part", Types.IntegerType.get()),
                Types.NestedField.optional(3, "v", Types.StringType.get())),
            Set.of(1, 2));
    Map<String, String> props = new HashMap<>();
    props.put(TableProperties.FORMAT_VERSION, a.getOrDefault("format-version", "2"));
    props.put(TableProperties.COMMIT_NUM_RETRIES, "20");
    props.put(TableProperties.COMMIT_MIN_RETRY_WAIT_MS, "20");
    props.put(TableProperties.COMMIT_MAX_RETRY_WAIT_MS, "500");
    Table created =
        CatalogOracle.create(
            catalog, a.get("table"), schema, PartitionSpec.builderFor(schema).identity("part").build(), props);
    AtomicInteger conflicts = new AtomicInteger();
    TableOperations ops = new CountingOps(((BaseTable) created).operations(), conflicts);
    Table table = new BaseTable(ops, created.name());
    IcebergStreamWriter w =
        new IcebergStreamWriter(
            table,
            mode,
            Integer.parseInt(a.getOrDefault("partitions", "4")),
            Integer.parseInt(a.getOrDefault("value-bytes", "40")));
    w.run(a, conflicts);
    CatalogOracle.close(catalog);
  }

  private void run(Map<String, String> a, AtomicInteger conflicts) throws Exception {
    long durationMs = Long.parseLong(a.getOrDefault("seconds", "180")) * 1000;
    long intervalMs = Long.parseLong(a.getOrDefault("interval-ms", "3000"));
    int filesPerCommit = Integer.parseInt(a.getOrDefault("files-per-commit", "8"));
    int rowsPerFile = Integer.parseInt(a.getOrDefault("rows-per-file", "200"));
    int upsertRows = Integer.parseInt(a.getOrDefault("upsert-rows", "50"));
    int commits = 0;
    int attempts = 0;
    ArrayNode failures = Canon.nodes().arrayNode();
    PrintWriter log = a.containsKey("log") ? new PrintWriter(new FileWriter(a.get("log"), true), true) : null;
    if (mode.equals("upsert")) {
      // the base table: one file per partition, committed before the clock starts
      long rows = Long.parseLong(a.getOrDefault("base-rows", "40000"));
      List<Record> base = new ArrayList<>();
      for (long i = 0; i < rows; i++) base.add(newRow((int) (i % partitions)));
      org.apache.iceberg.AppendFiles append = table.newAppend();
      List<DataFile> baseData = writeData(base);
      for (DataFile f : baseData) append.appendFile(f);
      append.commit();
      baseFiles = baseData.size();
      baseBytes = bytesData;
      bytesData = 0; // the base is not ingested by the stream
    }
    String readyFile = a.get("ready");
    if (readyFile != null) new File(readyFile).createNewFile();
    long start = System.currentTimeMillis();
    long end = start + durationMs;
    while (System.currentTimeMillis() < end) {
      long t0 = System.currentTimeMillis();
      attempts++;
      round++;
      int conflictsBefore = conflicts.get();
      long dataBefore = bytesData;
      long delBefore = bytesDeletes;
      int[] files = new int[2];
      try {
        table.refresh();
        if (mode.equals("append")) files = append(filesPerCommit, rowsPerFile);
        else files = upsert(upsertRows);
        commits++;
      } catch (CommitFailedException e) {
        failures.add(failure(e));
      } catch (RuntimeException e) {
        failures.add(failure(e));
      }
      long t1 = System.currentTimeMillis();
      if (log != null) {
        ObjectNode l = Canon.nodes().objectNode();
        l.put("atMs", t0 - start);
        l.put("commitMs", t1 - t0);
        l.put("dataFiles", files[0]);
        l.put("deleteFiles", files[1]);
        l.put("dataBytes", bytesData - dataBefore);
        l.put("deleteBytes", bytesDeletes - delBefore);
        l.put("conflicts", conflicts.get() - conflictsBefore);
        log.println(l.toString());
      }
      long sleep = intervalMs - (t1 - t0);
      if (sleep > 0) Thread.sleep(sleep);
    }
    if (log != null) log.close();
    long expected = 0;
    for (List<Long> keys : liveKeys) expected += keys.size();
    ObjectNode out = Canon.nodes().objectNode();
    out.put("commits", commits);
    out.put("attempts", attempts);
    out.put("conflicts", conflicts.get());
    out.set("failures", failures);
    out.put("expectedRows", expected);
    out.put("bytesData", bytesData);
    out.put("bytesDeletes", bytesDeletes);
    out.put("baseFiles", baseFiles);
    out.put("baseBytes", baseBytes);
    System.out.println(Canon.JSON.writeValueAsString(out));
  }

  private static ObjectNode failure(Throwable e) {
    ObjectNode f = Canon.nodes().objectNode();
    f.put("error", e.getClass().getName() + ": " + e.getMessage());
    Throwable c = e.getCause();
    if (c != null) f.put("cause", c.getClass().getName() + ": " + c.getMessage());
    return f;
  }

  // ---------------------------------------------------------------- rounds

  private Record newRow(int part) {
    long id = nextId++;
    liveKeys.get(part).add(id);
    return record(id, part, "r" + round + "-" + id + "-" + pad);
  }

  private Record record(long id, int part, String v) {
    GenericRecord r = GenericRecord.create(table.schema());
    r.setField("id", id);
    r.setField("part", part);
    r.setField("v", v);
    return r;
  }

  /** `files` data files (file k in partition k mod partitions) of `rows` new rows each, one commit. */
  private int[] append(int files, int rows) throws IOException {
    List<DataFile> written = new ArrayList<>();
    for (int k = 0; k < files; k++) {
      int part = k % partitions;
      List<Record> batch = new ArrayList<>();
      for (int i = 0; i < rows; i++) batch.add(newRow(part));
      written.addAll(writeData(batch));
    }
    org.apache.iceberg.AppendFiles append = table.newAppend();
    for (DataFile f : written) append.appendFile(f);
    append.commit();
    return new int[] {written.size(), 0};
  }

  /** Per partition: an equality delete of `n` live keys and their new rows, all in one RowDelta. */
  private int[] upsert(int n) throws IOException {
    List<Record> rows = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      List<Long> keys = liveKeys.get(p);
      TreeSet<Long> picked = new TreeSet<>();
      while (picked.size() < Math.min(n, keys.size())) picked.add(keys.get(rnd.nextInt(keys.size())));
      for (long id : picked) rows.add(record(id, p, "u" + round + "-" + id + "-" + pad));
    }
    if (rows.isEmpty()) return new int[] {0, 0};
    List<DeleteFile> deletes = writeEqDeletes(rows);
    List<DataFile> data = writeData(rows);
    RowDelta delta = table.newRowDelta();
    for (DeleteFile d : deletes) delta.addDeletes(d);
    for (DataFile f : data) delta.addRows(f);
    delta.commit();
    return new int[] {data.size(), deletes.size()};
  }

  // ---------------------------------------------------------------- files

  private OutputFileFactory files(FileFormat format) {
    return OutputFileFactory.builderFor(table, 9, ++fileCounter).format(format).build();
  }

  private List<DataFile> writeData(List<Record> records) throws IOException {
    List<DataFile> out = IcebergFiles.writeData(table, files(FileFormat.PARQUET), records);
    for (DataFile f : out) bytesData += f.fileSizeInBytes();
    return out;
  }

  private List<DeleteFile> writeEqDeletes(List<Record> rows) throws IOException {
    List<DeleteFile> out = IcebergFiles.writeEqDeletes(table, files(FileFormat.PARQUET), new int[] {1, 2}, rows);
    for (DeleteFile d : out) bytesDeletes += d.fileSizeInBytes();
    return out;
  }

  /** The catalog's table operations, counting the compare-and-swap losses Iceberg then retries. */
  private static final class CountingOps implements TableOperations {
    private final TableOperations inner;
    private final AtomicInteger conflicts;

    CountingOps(TableOperations inner, AtomicInteger conflicts) {
      this.inner = inner;
      this.conflicts = conflicts;
    }

    @Override
    public TableMetadata current() {
      return inner.current();
    }

    @Override
    public TableMetadata refresh() {
      return inner.refresh();
    }

    @Override
    public void commit(TableMetadata base, TableMetadata metadata) {
      try {
        inner.commit(base, metadata);
      } catch (CommitFailedException e) {
        conflicts.incrementAndGet();
        throw e;
      }
    }

    @Override
    public FileIO io() {
      return inner.io();
    }

    @Override
    public EncryptionManager encryption() {
      return inner.encryption();
    }

    @Override
    public String metadataFileLocation(String fileName) {
      return inner.metadataFileLocation(fileName);
    }

    @Override
    public LocationProvider locationProvider() {
      return inner.locationProvider();
    }

    @Override
    public long newSnapshotId() {
      return inner.newSnapshotId();
    }
  }
}
