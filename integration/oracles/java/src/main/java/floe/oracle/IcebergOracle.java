package floe.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.UpdatePartitionSpec;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.expressions.Term;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/** Iceberg writer/reader built on the Java reference library with a Hadoop (filesystem) catalog. */
final class IcebergOracle {
  private final Configuration conf = new Configuration();
  private long fileCounter = 0;
  /** When set, locations are catalog identifiers ("ns.table") instead of table directories. */
  private final org.apache.iceberg.catalog.Catalog catalog;

  IcebergOracle() {
    this(null);
  }

  IcebergOracle(org.apache.iceberg.catalog.Catalog catalog) {
    this.catalog = catalog;
  }

  // ---------------------------------------------------------------- loading

  /** A table directory (Hadoop table) or a metadata JSON file (read-only static table). */
  Table load(String location) {
    if (catalog != null) return catalog.loadTable(org.apache.iceberg.catalog.TableIdentifier.parse(location));
    if (location.endsWith(".metadata.json")) {
      StaticTableOperations ops = new StaticTableOperations(location, new HadoopFileIO(conf));
      return new BaseTable(ops, location);
    }
    java.io.File meta = new java.io.File(location, "metadata");
    if (!new java.io.File(meta, "version-hint.text").exists()) {
      // Not a Hadoop table (e.g. written through a SQL catalog): read its newest metadata file.
      String newest = null;
      int best = -1;
      String[] names = meta.list();
      if (names == null) throw new IllegalArgumentException("no metadata directory under " + location);
      for (String n : names) {
        java.util.regex.Matcher m =
            java.util.regex.Pattern.compile("^v?(\\d+)[-.].*metadata\\.json$").matcher(n);
        if (m.matches() && Integer.parseInt(m.group(1)) > best) {
          best = Integer.parseInt(m.group(1));
          newest = n;
        }
      }
      if (newest == null) throw new IllegalArgumentException("no metadata file under " + meta);
      return load(new java.io.File(meta, newest).getPath());
    }
    return new HadoopTables(conf).load(location);
  }

  // ---------------------------------------------------------------- write

  /** Creates the table when spec.schema is present, then applies spec.ops in order. */
  ObjectNode write(String location, JsonNode spec) throws IOException {
    Table table;
    if (spec.has("schema") || spec.has("schemaJson")) {
      table = create(location, spec);
    } else {
      table = catalog != null ? load(location) : new HadoopTables(conf).load(location);
    }
    ArrayNode results = Canon.nodes().arrayNode();
    for (JsonNode op : spec.path("ops")) {
      results.add(apply(table, op));
      table.refresh();
    }
    return summary(table, results);
  }

  ObjectNode summary(Table table, ArrayNode opResults) {
    ObjectNode out = Canon.nodes().objectNode();
    out.put("location", table.location());
    out.put("metadataFile", ((HasTableOperations) table).operations().current().metadataFileLocation());
    out.put("formatVersion", ((HasTableOperations) table).operations().current().formatVersion());
    Snapshot cur = table.currentSnapshot();
    out.put("currentSnapshotId", cur == null ? null : Long.toString(cur.snapshotId()));
    out.set("ops", opResults);
    return out;
  }

  private Table create(String location, JsonNode spec) {
    if (spec.has("schemaJson")) return createFromSchemaJson(location, spec);
    List<Types.NestedField> fields = new ArrayList<>();
    int id = 1;
    Map<String, Integer> ids = new HashMap<>();
    for (JsonNode f : spec.get("schema")) {
      String name = f.get("name").asText();
      Type type = Types.fromPrimitiveString(f.get("type").asText());
      boolean required = f.path("required").asBoolean(false);
      fields.add(
          required
              ? Types.NestedField.required(id, name, type)
              : Types.NestedField.optional(id, name, type));
      ids.put(name, id++);
    }
    Set<Integer> identifier = new HashSet<>();
    for (JsonNode n : spec.path("identifierFields")) {
      Integer fid = ids.get(n.asText());
      if (fid == null) throw new IllegalArgumentException("identifier field not in schema: " + n);
      identifier.add(fid);
    }
    Schema schema = new Schema(fields, identifier);
    PartitionSpec.Builder pb = PartitionSpec.builderFor(schema);
    for (JsonNode p : spec.path("partitionSpec")) addPartitionField(pb, p);
    Map<String, String> props = new HashMap<>();
    props.put(TableProperties.FORMAT_VERSION, Integer.toString(spec.path("formatVersion").asInt(2)));
    spec.path("properties").fields().forEachRemaining(e -> props.put(e.getKey(), e.getValue().asText()));
    if (catalog != null) return CatalogOracle.create(catalog, location, schema, pb.build(), props);
    return new HadoopTables(conf).create(schema, pb.build(), SortOrder.unsorted(), props, location);
  }

  /** A table whose schema is given as Iceberg schema JSON (any nesting, ids as given); unpartitioned. */
  private Table createFromSchemaJson(String location, JsonNode spec) {
    Schema schema = org.apache.iceberg.SchemaParser.fromJson(spec.get("schemaJson").toString());
    Map<String, String> props = new HashMap<>();
    props.put(TableProperties.FORMAT_VERSION, Integer.toString(spec.path("formatVersion").asInt(2)));
    spec.path("properties").fields().forEachRemaining(e -> props.put(e.getKey(), e.getValue().asText()));
    if (catalog != null) return CatalogOracle.create(catalog, location, schema, PartitionSpec.unpartitioned(), props);
    return new HadoopTables(conf).create(schema, PartitionSpec.unpartitioned(), SortOrder.unsorted(), props, location);
  }

  private static void addPartitionField(PartitionSpec.Builder pb, JsonNode p) {
    String source = p.get("source").asText();
    String t = p.path("transform").asText("identity");
    String name = p.has("name") ? p.get("name").asText() : null;
    if (t.equals("identity")) pb.identity(source);
    else if (t.startsWith("bucket[")) {
      int n = bracketArg(t);
      if (name != null) pb.bucket(source, n, name);
      else pb.bucket(source, n);
    } else if (t.startsWith("truncate[")) {
      int w = bracketArg(t);
      if (name != null) pb.truncate(source, w, name);
      else pb.truncate(source, w);
    } else if (t.equals("day")) {
      if (name != null) pb.day(source, name);
      else pb.day(source);
    } else if (t.equals("month")) pb.month(source);
    else if (t.equals("year")) pb.year(source);
    else if (t.equals("hour")) pb.hour(source);
    else throw new IllegalArgumentException("unsupported transform " + t);
  }

  private static Term term(JsonNode p) {
    String source = p.get("source").asText();
    String t = p.path("transform").asText("identity");
    if (t.equals("identity")) return Expressions.ref(source);
    if (t.startsWith("bucket[")) return Expressions.bucket(source, bracketArg(t));
    if (t.startsWith("truncate[")) return Expressions.truncate(source, bracketArg(t));
    if (t.equals("day")) return Expressions.day(source);
    if (t.equals("month")) return Expressions.month(source);
    if (t.equals("year")) return Expressions.year(source);
    if (t.equals("hour")) return Expressions.hour(source);
    throw new IllegalArgumentException("unsupported transform " + t);
  }

  private static int bracketArg(String t) {
    return Integer.parseInt(t.substring(t.indexOf('[') + 1, t.indexOf(']')));
  }

  ObjectNode apply(Table table, JsonNode op) throws IOException {
    String kind = op.get("op").asText();
    switch (kind) {
      case "append":
        append(table, op.get("rows"), op.path("branch").asText(null));
        break;
      case "create-branch":
      case "create-tag":
        createRef(table, op, kind.equals("create-branch"));
        break;
      case "delete-eq":
        deleteEq(table, op);
        break;
      case "upsert":
        upsert(table, op);
        break;
      case "delete-pos":
        deletePos(table, op);
        break;
      case "evolve-schema":
        evolveSchema(table, op.get("changes"));
        break;
      case "evolve-spec":
        evolveSpec(table, op);
        break;
      default:
        throw new IllegalArgumentException("unknown iceberg op: " + kind);
    }
    table.refresh();
    ObjectNode r = Canon.nodes().objectNode();
    r.put("op", kind);
    // ops on a branch report the branch head
    Snapshot s = op.hasNonNull("branch") ? table.snapshot(op.get("branch").asText()) : table.currentSnapshot();
    if (s != null && !kind.startsWith("evolve") && !kind.startsWith("create-")) {
      r.put("snapshotId", Long.toString(s.snapshotId()));
      r.put("sequenceNumber", Long.toString(s.sequenceNumber()));
      r.put("operation", s.operation());
      ObjectNode sum = r.putObject("summary");
      s.summary().forEach(sum::put);
    }
    return r;
  }

  // ---- rows ↔ records

  private static Record toRecord(Schema schema, JsonNode row) {
    GenericRecord rec = GenericRecord.create(schema);
    for (Types.NestedField f : schema.columns()) {
      JsonNode v = row.get(f.name());
      if (v == null || v.isNull()) {
        rec.setField(f.name(), v == null ? writeDefault(f) : null);
      } else {
        rec.setField(f.name(), toJava(f.type(), v));
      }
    }
    return rec;
  }

  /** Iceberg v3 write-default for a column left out of an input row (only simple kinds). */
  private static Object writeDefault(Types.NestedField f) {
    Object d = f.writeDefault();
    if (d == null) return null;
    switch (f.type().typeId()) {
      case INTEGER:
      case LONG:
      case STRING:
      case BOOLEAN:
      case DOUBLE:
      case FLOAT:
      case DECIMAL:
        return d instanceof CharSequence ? d.toString() : d;
      default:
        return null;
    }
  }

  static Object toJava(Type type, JsonNode v) {
    switch (type.typeId()) {
      case INTEGER:
        return Canon.parseInt(v);
      case LONG:
        return Canon.parseLong(v);
      case FLOAT:
        return Canon.parseDouble(v).floatValue();
      case DOUBLE:
        return Canon.parseDouble(v);
      case BOOLEAN:
        return Canon.parseBoolean(v);
      case STRING:
        return v.asText();
      case DECIMAL:
        return Canon.parseDecimal(v, ((Types.DecimalType) type).scale());
      case DATE:
        return Canon.parseDate(v);
      case TIME:
        return Canon.parseTime(v);
      case TIMESTAMP:
        return ((Types.TimestampType) type).shouldAdjustToUTC()
            ? Canon.parseTimestampTz(v)
            : Canon.parseTimestamp(v);
      case TIMESTAMP_NANO:
        return ((Types.TimestampNanoType) type).shouldAdjustToUTC()
            ? Canon.parseTimestampTz(v)
            : Canon.parseTimestamp(v);
      case BINARY:
        return ByteBuffer.wrap(Canon.parseBinary(v));
      case FIXED:
        return Canon.parseBinary(v);
      case UUID:
        return Canon.parseUuid(v);
      case STRUCT:
        {
          // a JSON object keyed by field name
          GenericRecord rec = GenericRecord.create(type.asStructType());
          for (Types.NestedField f : type.asStructType().fields()) {
            JsonNode x = v.get(f.name());
            rec.setField(f.name(), x == null || x.isNull() ? null : toJava(f.type(), x));
          }
          return rec;
        }
      case LIST:
        {
          List<Object> out = new ArrayList<>();
          for (JsonNode x : v) out.add(x.isNull() ? null : toJava(type.asListType().elementType(), x));
          return out;
        }
      case MAP:
        {
          // a JSON object: keys are canonical text of the key type
          Map<Object, Object> out = new LinkedHashMap<>();
          Type kt = type.asMapType().keyType();
          Type vt = type.asMapType().valueType();
          v.fields()
              .forEachRemaining(
                  e ->
                      out.put(
                          toJava(kt, Canon.nodes().textNode(e.getKey())),
                          e.getValue().isNull() ? null : toJava(vt, e.getValue())));
          return out;
        }
      default:
        throw new IllegalArgumentException("unsupported input type " + type);
    }
  }

  static String kind(Type type) {
    return type.toString().replace(" ", "");
  }

  static Map<String, Object> render(Types.StructType struct, StructLike rec) {
    Map<String, Object> row = new LinkedHashMap<>();
    List<Types.NestedField> fields = struct.fields();
    for (int i = 0; i < fields.size(); i++) {
      Types.NestedField f = fields.get(i);
      // Readers may append metadata columns (e.g. _pos for v3 deletion vectors): not table data.
      if (MetadataColumns.isMetadataColumn(f.fieldId())) continue;
      Object v = rec.get(i, Object.class);
      row.put(f.name(), renderValue(f.type(), v));
    }
    return row;
  }

  private static Object renderValue(Type type, Object v) {
    if (v == null) return null;
    if (type.isPrimitiveType()) return Canon.render(kind(type), v);
    // Nested: canonical JSON text so that rows stay flat.
    Object nested = renderNested(type, v);
    try {
      return Canon.JSON.writeValueAsString(nested);
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }

  private static Object renderNested(Type type, Object v) {
    if (v == null) return null;
    if (type.isPrimitiveType()) return Canon.render(kind(type), v);
    if (type.isStructType()) {
      Map<String, Object> m = new TreeMap<>();
      List<Types.NestedField> fs = type.asStructType().fields();
      StructLike s = (StructLike) v;
      for (int i = 0; i < fs.size(); i++) {
        m.put(fs.get(i).name(), renderNested(fs.get(i).type(), s.get(i, Object.class)));
      }
      return m;
    }
    if (type.isListType()) {
      List<Object> out = new ArrayList<>();
      for (Object e : (List<?>) v) out.add(renderNested(type.asListType().elementType(), e));
      return out;
    }
    if (type.isMapType()) {
      Map<String, Object> m = new TreeMap<>();
      for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
        m.put(
            String.valueOf(renderNested(type.asMapType().keyType(), e.getKey())),
            renderNested(type.asMapType().valueType(), e.getValue()));
      }
      return m;
    }
    throw new IllegalArgumentException("unsupported type " + type);
  }

  // ---- partitioning helpers

  private OutputFileFactory files(Table table, FileFormat format) {
    // Distinct task ids keep file names unique across ops within one process.
    return OutputFileFactory.builderFor(table, 1, ++fileCounter).format(format).build();
  }

  private List<DataFile> writeData(Table table, List<Record> records) throws IOException {
    return IcebergFiles.writeData(table, files(table, FileFormat.PARQUET), records);
  }

  private void append(Table table, JsonNode rows, String branch) throws IOException {
    List<Record> records = new ArrayList<>();
    for (JsonNode row : rows) records.add(toRecord(table.schema(), row));
    AppendFiles append = table.newAppend();
    if (branch != null) append.toBranch(branch);
    for (DataFile f : writeData(table, records)) append.appendFile(f);
    append.commit();
  }

  /**
   * Branch or tag `name` at op.snapshotId (default: the current snapshot), with optional retention:
   * maxRefAgeMs (both), minSnapshotsToKeep / maxSnapshotAgeMs (branches).
   */
  private static void createRef(Table table, JsonNode op, boolean branch) {
    String name = op.get("name").asText();
    long at =
        op.hasNonNull("snapshotId")
            ? Long.parseLong(op.get("snapshotId").asText())
            : table.currentSnapshot().snapshotId();
    org.apache.iceberg.ManageSnapshots m = table.manageSnapshots();
    if (branch) m.createBranch(name, at);
    else m.createTag(name, at);
    if (op.hasNonNull("maxRefAgeMs")) m.setMaxRefAgeMs(name, op.get("maxRefAgeMs").asLong());
    if (op.hasNonNull("minSnapshotsToKeep")) m.setMinSnapshotsToKeep(name, op.get("minSnapshotsToKeep").asInt());
    if (op.hasNonNull("maxSnapshotAgeMs")) m.setMaxSnapshotAgeMs(name, op.get("maxSnapshotAgeMs").asLong());
    m.commit();
  }

  private static int[] eqFieldIds(Table table, JsonNode op) {
    Schema schema = table.schema();
    List<Integer> ids = new ArrayList<>();
    if (op.has("fields")) {
      for (JsonNode n : op.get("fields")) ids.add(schema.findField(n.asText()).fieldId());
    } else {
      ids.addAll(schema.identifierFieldIds());
    }
    if (ids.isEmpty()) {
      throw new IllegalArgumentException(
          "equality delete needs 'fields' or identifier fields on table " + table.location());
    }
    return ids.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Equality-delete files, one per partition; key rows must carry partition source columns. */
  private List<DeleteFile> writeEqDeletes(Table table, int[] eqIds, List<Record> keyRows)
      throws IOException {
    return IcebergFiles.writeEqDeletes(table, files(table, FileFormat.PARQUET), eqIds, keyRows);
  }

  private void deleteEq(Table table, JsonNode op) throws IOException {
    int[] eqIds = eqFieldIds(table, op);
    List<Record> keys = new ArrayList<>();
    for (JsonNode row : op.get("rows")) keys.add(toRecord(table.schema(), row));
    RowDelta delta = table.newRowDelta();
    if (op.hasNonNull("branch")) delta.toBranch(op.get("branch").asText());
    for (DeleteFile d : writeEqDeletes(table, eqIds, keys)) delta.addDeletes(d);
    delta.commit();
  }

  /** Flink-style upsert: equality delete of the keys plus the new rows, in one commit. */
  private void upsert(Table table, JsonNode op) throws IOException {
    int[] eqIds = eqFieldIds(table, op);
    List<Record> records = new ArrayList<>();
    for (JsonNode row : op.get("rows")) records.add(toRecord(table.schema(), row));
    RowDelta delta = table.newRowDelta();
    for (DeleteFile d : writeEqDeletes(table, eqIds, records)) delta.addDeletes(d);
    for (DataFile f : writeData(table, records)) delta.addRows(f);
    delta.commit();
  }

  /**
   * Position deletes of every physical row matching any of op.where (list of column→canonical value
   * objects, all given columns must match). v2 writes Parquet position-delete files (one per data
   * file partition); v3 writes deletion vectors, merging with an existing DV of the same data file.
   */
  private void deletePos(Table table, JsonNode op) throws IOException {
    List<JsonNode> where = new ArrayList<>();
    JsonNode w = op.get("where");
    if (w.isArray()) w.forEach(where::add);
    else where.add(w);

    Schema schema = table.schema();
    int formatVersion = ((HasTableOperations) table).operations().current().formatVersion();
    Map<String, List<Long>> hits = new TreeMap<>();
    Map<String, FileScanTask> taskByPath = new HashMap<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        String path = task.file().location();
        taskByPath.put(path, task);
        try (CloseableIterable<Record> rows =
            Parquet.read(table.io().newInputFile(path))
                .project(schema)
                .createReaderFunc(fs -> GenericParquetReaders.buildReader(schema, fs))
                .build()) {
          long pos = 0;
          for (Record r : rows) {
            Map<String, Object> canon = render(schema.asStruct(), r);
            for (JsonNode cond : where) {
              if (matches(canon, cond)) {
                hits.computeIfAbsent(path, p -> new ArrayList<>()).add(pos);
                break;
              }
            }
            pos++;
          }
        }
      }
    }
    if (hits.isEmpty()) throw new IllegalArgumentException("delete-pos matched no rows: " + w);

    RowDelta delta = table.newRowDelta();
    // The scan above saw the current snapshot: validating from it lets us replace an existing DV.
    delta.validateFromSnapshot(table.currentSnapshot().snapshotId());
    if (formatVersion >= 3) {
      BaseDeleteLoader loader = new BaseDeleteLoader(df -> table.io().newInputFile(df));
      BaseDVFileWriter dvs =
          new BaseDVFileWriter(
              files(table, FileFormat.PUFFIN),
              path -> {
                List<DeleteFile> existing = new ArrayList<>();
                for (DeleteFile d : taskByPath.get(path).deletes()) {
                  if (d.format() == FileFormat.PUFFIN) existing.add(d);
                }
                if (existing.isEmpty()) return null;
                PositionDeleteIndex idx = loader.loadPositionDeletes(existing, path);
                return idx;
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
      // Group data files by (spec, partition) so each delete file stays partition-scoped.
      Map<String, List<String>> groups = new LinkedHashMap<>();
      for (String path : hits.keySet()) {
        DataFile f = taskByPath.get(path).file();
        String key = f.specId() + "|" + f.partition().toString();
        groups.computeIfAbsent(key, k -> new ArrayList<>()).add(path);
      }
      OutputFileFactory files = files(table, FileFormat.PARQUET);
      for (List<String> paths : groups.values()) {
        DataFile first = taskByPath.get(paths.get(0)).file();
        Map<String, List<Long>> group = new LinkedHashMap<>(); // TreeMap order: sorted by path
        for (String path : paths) group.put(path, hits.get(path));
        delta.addDeletes(
            IcebergFiles.writePositionDeletes(
                table, files, table.specs().get(first.specId()), first.partition(), group));
      }
    }
    delta.commit();
  }

  private static boolean matches(Map<String, Object> canon, JsonNode cond) {
    Iterator<Map.Entry<String, JsonNode>> it = cond.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      Object have = canon.get(e.getKey());
      JsonNode want = e.getValue();
      if (want.isNull()) {
        if (have != null) return false;
      } else if (have == null || !String.valueOf(have).equals(want.asText())) {
        return false;
      }
    }
    return true;
  }

  private static void evolveSchema(Table table, JsonNode changes) {
    UpdateSchema update = table.updateSchema();
    for (JsonNode c : changes) {
      String action = c.get("action").asText();
      switch (action) {
        case "add":
          {
            Type type = Types.fromPrimitiveString(c.get("type").asText());
            if (c.has("default") && !c.get("default").isNull()) {
              update.addColumn(c.get("name").asText(), type, defaultLiteral(type, c.get("default")));
            } else {
              update.addColumn(c.get("name").asText(), type);
            }
            break;
          }
        case "rename":
          update.renameColumn(c.get("from").asText(), c.get("to").asText());
          break;
        case "widen":
          update.updateColumn(
              c.get("name").asText(),
              Types.fromPrimitiveString(c.get("type").asText()).asPrimitiveType());
          break;
        case "drop":
          update.deleteColumn(c.get("name").asText());
          break;
        default:
          throw new IllegalArgumentException("unknown schema change " + action);
      }
    }
    update.commit();
  }

  private static Literal<?> defaultLiteral(Type type, JsonNode v) {
    switch (type.typeId()) {
      case INTEGER:
        return Literal.of(Canon.parseInt(v));
      case LONG:
        return Literal.of(Canon.parseLong(v));
      case DOUBLE:
        return Literal.of(Canon.parseDouble(v));
      case BOOLEAN:
        return Literal.of(Canon.parseBoolean(v));
      case DECIMAL:
        return Literal.of(Canon.parseDecimal(v, ((Types.DecimalType) type).scale()));
      default:
        return Literal.of(v.asText()).to(type);
    }
  }

  private static void evolveSpec(Table table, JsonNode op) {
    UpdatePartitionSpec update = table.updateSpec();
    for (JsonNode name : op.path("remove")) update.removeField(name.asText());
    for (JsonNode p : op.path("add")) {
      if (p.has("name")) update.addField(p.get("name").asText(), term(p));
      else update.addField(term(p));
    }
    update.commit();
  }

  // ---------------------------------------------------------------- read

  /** Live rows at the current snapshot or at snapshotId, as sorted canonical JSON lines. */
  List<String> read(String location, Long snapshotId) throws IOException {
    Table table = load(location);
    List<Map<String, Object>> rows = new ArrayList<>();
    if (table.currentSnapshot() == null && snapshotId == null) return List.of();
    IcebergGenerics.ScanBuilder scan = IcebergGenerics.read(table);
    if (snapshotId != null) scan = scan.useSnapshot(snapshotId);
    try (CloseableIterable<Record> it = scan.build()) {
      for (Record r : it) rows.add(render(r.struct(), r));
    }
    return Canon.sortedLines(rows);
  }
}
