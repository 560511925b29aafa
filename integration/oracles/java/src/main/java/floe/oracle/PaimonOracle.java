package floe.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.fs.Path;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeJsonParser;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.LocalZonedTimestampType;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.TimestampType;

/** Paimon writer/reader on the Java reference library with a filesystem catalog. */
final class PaimonOracle implements AutoCloseable {
  private final Catalog catalog;

  PaimonOracle(String warehouse) {
    Options options = new Options();
    options.set("warehouse", warehouse);
    this.catalog = CatalogFactory.createCatalog(CatalogContext.create(options));
  }

  /** A catalog from its options (PaimonRestServer: a REST catalog client). */
  PaimonOracle(Options options) {
    this.catalog = CatalogFactory.createCatalog(CatalogContext.create(options));
  }

  Catalog catalog() {
    return catalog;
  }

  @Override
  public void close() throws Exception {
    catalog.close();
  }

  /** Accepts Iceberg-style names (int, long, timestamptz, ...) or Paimon SQL type strings. */
  static DataType parseType(String t) {
    String s = t.trim().toLowerCase();
    String sql;
    if (s.equals("int")) sql = "INT";
    else if (s.equals("long")) sql = "BIGINT";
    else if (s.equals("string")) sql = "STRING";
    else if (s.equals("double")) sql = "DOUBLE";
    else if (s.equals("float")) sql = "FLOAT";
    else if (s.equals("boolean")) sql = "BOOLEAN";
    else if (s.equals("binary")) sql = "BYTES";
    else if (s.equals("date")) sql = "DATE";
    else if (s.equals("timestamp")) sql = "TIMESTAMP(6)";
    else if (s.equals("timestamptz")) sql = "TIMESTAMP(6) WITH LOCAL TIME ZONE";
    else sql = t;
    return DataTypeJsonParser.parseAtomicTypeSQLString(sql);
  }

  /** Canonical kind of a Paimon type (see Canon). */
  static String kind(DataType type) {
    switch (type.getTypeRoot()) {
      case TINYINT:
      case SMALLINT:
      case INTEGER:
        return "int";
      case BIGINT:
        return "long";
      case FLOAT:
        return "float";
      case DOUBLE:
        return "double";
      case BOOLEAN:
        return "boolean";
      case CHAR:
      case VARCHAR:
        return "string";
      case BINARY:
      case VARBINARY:
        return "binary";
      case DATE:
        return "date";
      case DECIMAL:
        {
          DecimalType d = (DecimalType) type;
          return "decimal(" + d.getPrecision() + "," + d.getScale() + ")";
        }
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        return ((TimestampType) type).getPrecision() > 6 ? "timestamp_ns" : "timestamp";
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return ((LocalZonedTimestampType) type).getPrecision() > 6 ? "timestamptz_ns" : "timestamptz";
      default:
        throw new IllegalArgumentException("unsupported Paimon type " + type);
    }
  }

  static Object toInternal(DataType type, JsonNode v) {
    if (v == null || v.isNull()) return null;
    switch (type.getTypeRoot()) {
      case TINYINT:
        return (byte) Canon.parseInt(v).intValue();
      case SMALLINT:
        return (short) Canon.parseInt(v).intValue();
      case INTEGER:
        return Canon.parseInt(v);
      case BIGINT:
        return Canon.parseLong(v);
      case FLOAT:
        return Canon.parseDouble(v).floatValue();
      case DOUBLE:
        return Canon.parseDouble(v);
      case BOOLEAN:
        return Canon.parseBoolean(v);
      case CHAR:
      case VARCHAR:
        return BinaryString.fromString(v.asText());
      case BINARY:
      case VARBINARY:
        return Canon.parseBinary(v);
      case DATE:
        return (int) Canon.parseDate(v).toEpochDay();
      case DECIMAL:
        {
          DecimalType d = (DecimalType) type;
          return Decimal.fromBigDecimal(
              Canon.parseDecimal(v, d.getScale()), d.getPrecision(), d.getScale());
        }
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        return Timestamp.fromLocalDateTime(Canon.parseTimestamp(v));
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return Timestamp.fromInstant(Canon.parseTimestampTz(v).toInstant());
      default:
        if (PaimonNested.isNested(type)) return PaimonNested.toInternal(type, v);
        throw new IllegalArgumentException("unsupported Paimon type " + type);
    }
  }

  static Object toJava(DataType type, Object internal) {
    if (internal == null) return null;
    switch (type.getTypeRoot()) {
      case CHAR:
      case VARCHAR:
        return internal.toString();
      case DATE:
        return LocalDate.ofEpochDay((Integer) internal);
      case DECIMAL:
        return ((Decimal) internal).toBigDecimal();
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        return ((Timestamp) internal).toLocalDateTime();
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return ((Timestamp) internal).toInstant();
      case TINYINT:
        return ((Byte) internal).intValue();
      case SMALLINT:
        return ((Short) internal).intValue();
      default:
        return internal;
    }
  }

  static Identifier ident(JsonNode spec) {
    return Identifier.create(
        spec.path("database").asText("default"), spec.path("table").asText("t"));
  }

  /**
   * Creates the table when spec.fields is present, then commits each entry of spec.commits (a list
   * of {kind: "+I"|"-U"|"+U"|"-D", row: {...}}) as its own batch commit.
   */
  ObjectNode write(JsonNode spec) throws Exception {
    Identifier id = ident(spec);
    if (spec.has("fields")) {
      catalog.createDatabase(id.getDatabaseName(), true);
      Schema.Builder b = Schema.newBuilder();
      for (JsonNode f : spec.get("fields")) {
        JsonNode ft = f.get("type");
        b.column(f.get("name").asText(), ft.isObject() ? PaimonNested.type(ft) : parseType(ft.asText()));
      }
      List<String> pk = new ArrayList<>();
      spec.path("primaryKeys").forEach(n -> pk.add(n.asText()));
      if (!pk.isEmpty()) b.primaryKey(pk);
      List<String> parts = new ArrayList<>();
      spec.path("partitionKeys").forEach(n -> parts.add(n.asText()));
      if (!parts.isEmpty()) b.partitionKeys(parts);
      Map<String, String> opts = new HashMap<>();
      spec.path("options").fields().forEachRemaining(e -> opts.put(e.getKey(), e.getValue().asText()));
      b.options(opts);
      catalog.createTable(id, b.build(), false);
    }
    Table table = catalog.getTable(id);
    List<DataField> fields = table.rowType().getFields();
    ArrayNode commits = Canon.nodes().arrayNode();
    for (JsonNode commit : spec.path("commits")) {
      BatchWriteBuilder builder = table.newBatchWriteBuilder();
      // Lookup compaction (first-row, changelog-producer=lookup) spills to local disk.
      try (IOManager io = IOManager.create(System.getProperty("java.io.tmpdir"));
          BatchTableWrite write = builder.newWrite()) {
        write.withIOManager(io);
        for (JsonNode change : commit) {
          RowKind kind = RowKind.fromShortString(change.path("kind").asText("+I"));
          JsonNode row = change.get("row");
          Object[] values = new Object[fields.size()];
          for (int i = 0; i < fields.size(); i++) {
            DataField f = fields.get(i);
            values[i] = toInternal(f.type(), row.get(f.name()));
          }
          write.write(GenericRow.ofKind(kind, values));
        }
        List<CommitMessage> messages = write.prepareCommit();
        try (BatchTableCommit c = builder.newCommit()) {
          c.commit(messages);
        }
      }
      table = catalog.getTable(id); // pick up the new snapshot
      ObjectNode r = commits.addObject();
      Long snap = ((FileStoreTable) table).snapshotManager().latestSnapshotId();
      r.put("snapshotId", snap == null ? null : snap.toString());
    }
    ObjectNode out = Canon.nodes().objectNode();
    out.put("tablePath", ((FileStoreTable) table).location().toString());
    out.set("commits", commits);
    return out;
  }

  /**
   * Compacts every (partition, bucket) with Paimon's own compaction (full when spec.full is true), in one
   * batch commit, as a dedicated compaction job would; write-only is switched off for this job only.
   * Prints {snapshotId}.
   */
  ObjectNode compact(JsonNode spec) throws Exception {
    Identifier id = ident(spec);
    Map<String, String> dyn = new HashMap<>();
    dyn.put("write-only", "false");
    FileStoreTable table = (FileStoreTable) catalog.getTable(id).copy(dyn);
    boolean full = spec.path("full").asBoolean(true);
    if (table.bucketMode() == org.apache.paimon.table.BucketMode.BUCKET_UNAWARE) {
      // Bucket-unaware append tables: table writes never compact them (NoopCompactManager); Paimon's
      // dedicated job plans with AppendCompactCoordinator and runs each AppendCompactTask. One batch run.
      List<org.apache.paimon.append.AppendCompactTask> tasks =
          new org.apache.paimon.append.AppendCompactCoordinator(table, false).run();
      String user = java.util.UUID.randomUUID().toString();
      List<CommitMessage> messages = new ArrayList<>();
      org.apache.paimon.operation.BaseAppendFileStoreWrite w =
          (org.apache.paimon.operation.BaseAppendFileStoreWrite) table.store().newWrite(user);
      try {
        for (org.apache.paimon.append.AppendCompactTask t : tasks) messages.add(t.doCompact(table, w));
      } finally {
        w.close();
      }
      if (!messages.isEmpty()) {
        try (BatchTableCommit c = table.newBatchWriteBuilder().newCommit()) {
          c.commit(messages);
        }
      }
      Long snap = ((FileStoreTable) catalog.getTable(id)).snapshotManager().latestSnapshotId();
      ObjectNode out = Canon.nodes().objectNode();
      out.put("snapshotId", snap == null ? null : snap.toString());
      out.put("tasks", tasks.size());
      return out;
    }
    java.util.LinkedHashMap<String, Object[]> targets = new java.util.LinkedHashMap<>();
    for (org.apache.paimon.manifest.ManifestEntry e : table.store().newScan().plan().files()) {
      targets.put(e.partition().toString() + "|" + java.util.Arrays.toString(e.partition().toBytes()) + "|" + e.bucket(),
          new Object[] {e.partition(), e.bucket()});
    }
    BatchWriteBuilder builder = table.newBatchWriteBuilder();
    // Lookup-based compaction (first-row, lookup changelog) spills to local disk.
    String tmp = System.getProperty("java.io.tmpdir");
    try (BatchTableWrite write = (BatchTableWrite) builder.newWrite().withIOManager(org.apache.paimon.disk.IOManager.create(tmp))) {
      for (Object[] t : targets.values()) {
        write.compact((org.apache.paimon.data.BinaryRow) t[0], (Integer) t[1], full);
      }
      List<CommitMessage> messages = write.prepareCommit();
      try (BatchTableCommit c = builder.newCommit()) {
        c.commit(messages);
      }
    }
    Long snap = ((FileStoreTable) catalog.getTable(id)).snapshotManager().latestSnapshotId();
    ObjectNode out = Canon.nodes().objectNode();
    out.put("snapshotId", snap == null ? null : snap.toString());
    return out;
  }

  List<String> read(JsonNode spec, Long snapshotId) throws Exception {
    Table table = catalog.getTable(ident(spec));
    if (snapshotId != null) {
      Map<String, String> dyn = new HashMap<>();
      dyn.put("scan.snapshot-id", snapshotId.toString());
      table = table.copy(dyn);
    } else if (spec.hasNonNull("tag")) { // time travel to a tag: spec {tag: NAME}
      Map<String, String> dyn = new HashMap<>();
      dyn.put("scan.tag-name", spec.get("tag").asText());
      table = table.copy(dyn);
    }
    List<DataField> fields = table.rowType().getFields();
    List<InternalRow.FieldGetter> getters = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      getters.add(InternalRow.createFieldGetter(fields.get(i).type(), i));
    }
    ReadBuilder rb = table.newReadBuilder();
    List<Split> splits = rb.newScan().plan().splits();
    List<Map<String, Object>> rows = new ArrayList<>();
    try (RecordReader<InternalRow> reader = rb.newRead().createReader(splits)) {
      reader.forEachRemaining(
          r -> {
            // A batch read yields merged rows; retractions would mean a reader bug, keep them out.
            if (r.getRowKind() == RowKind.DELETE || r.getRowKind() == RowKind.UPDATE_BEFORE) return;
            Map<String, Object> row = new LinkedHashMap<>();
            for (int i = 0; i < fields.size(); i++) {
              DataType t = fields.get(i).type();
              Object v = getters.get(i).getFieldOrNull(r);
              row.put(
                  fields.get(i).name(),
                  PaimonNested.isNested(t) ? PaimonNested.render(t, v) : Canon.render(kind(t), toJava(t, v)));
            }
            rows.add(row);
          });
    }
    return Canon.sortedLines(rows);
  }
}
