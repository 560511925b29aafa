package floe.oracle;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * Parquet data, equality-delete and position-delete files written the way Iceberg's generic writers do,
 * shared by the oracle (IcebergOracle) and the live writer (IcebergLiveWriter).
 *
 * <p>Built on Iceberg's Parquet write builders, which exist unchanged on every release the oracle is
 * built against (1.10 and 1.12): 1.12 removed GenericAppenderFactory and position deletes that carry the
 * deleted row, so position-delete files here hold (file_path, pos) only.
 */
final class IcebergFiles {
  private IcebergFiles() {}

  /** Rows grouped by their partition under the table's current spec, in first-seen order. */
  static Map<PartitionKey, List<Record>> byPartition(Table table, List<Record> records) {
    PartitionSpec spec = table.spec();
    Schema schema = table.schema();
    InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
    Map<PartitionKey, List<Record>> groups = new LinkedHashMap<>();
    for (Record r : records) {
      PartitionKey key = new PartitionKey(spec, schema);
      key.partition(wrapper.wrap(r));
      groups.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
    }
    return groups;
  }

  /** One data file per partition of `records` (current spec and schema, the table's write properties). */
  static List<DataFile> writeData(Table table, OutputFileFactory files, List<Record> records)
      throws IOException {
    List<DataFile> out = new ArrayList<>();
    for (Map.Entry<PartitionKey, List<Record>> g : byPartition(table, records).entrySet()) {
      EncryptedOutputFile file = files.newOutputFile(table.spec(), g.getKey());
      DataWriter<Record> w =
          Parquet.writeData(file)
              .forTable(table)
              .withSpec(table.spec())
              .withPartition(g.getKey())
              .withKeyMetadata(file.keyMetadata())
              .createWriterFunc(GenericParquetWriter::create)
              .overwrite()
              .build();
      try (DataWriter<Record> closing = w) {
        for (Record r : g.getValue()) closing.write(r);
      }
      out.add(w.toDataFile());
    }
    return out;
  }

  /**
   * Equality-delete files on the fields `eqIds`, one per partition; `rows` must carry the partition source
   * columns (each written row holds only the equality fields).
   */
  static List<DeleteFile> writeEqDeletes(
      Table table, OutputFileFactory files, int[] eqIds, List<Record> rows) throws IOException {
    Set<Integer> idSet = new HashSet<>();
    for (int i : eqIds) idSet.add(i);
    Schema eqSchema = TypeUtil.select(table.schema(), idSet);
    List<DeleteFile> out = new ArrayList<>();
    for (Map.Entry<PartitionKey, List<Record>> g : byPartition(table, rows).entrySet()) {
      EncryptedOutputFile file = files.newOutputFile(table.spec(), g.getKey());
      EqualityDeleteWriter<Record> w =
          Parquet.writeDeletes(file)
              .forTable(table)
              .withSpec(table.spec())
              .withPartition(g.getKey())
              .withKeyMetadata(file.keyMetadata())
              .rowSchema(eqSchema)
              .equalityFieldIds(eqIds)
              .createWriterFunc(GenericParquetWriter::create)
              .overwrite()
              .buildEqualityWriter();
      try (EqualityDeleteWriter<Record> closing = w) {
        for (Record full : g.getValue()) {
          GenericRecord k = GenericRecord.create(eqSchema);
          for (Types.NestedField f : eqSchema.columns()) k.setField(f.name(), full.getField(f.name()));
          closing.write(k);
        }
      }
      out.add(w.toDeleteFile());
    }
    return out;
  }

  /**
   * One position-delete file for data files of one (spec, partition): `hits` maps each data file's path to
   * its deleted positions, both in ascending order (what the spec requires of a position-delete file).
   */
  static DeleteFile writePositionDeletes(
      Table table,
      OutputFileFactory files,
      PartitionSpec spec,
      StructLike partition,
      Map<String, ? extends Iterable<Long>> hits)
      throws IOException {
    EncryptedOutputFile file = files.newOutputFile(spec, partition);
    PositionDeleteWriter<Record> w =
        Parquet.writeDeletes(file)
            .forTable(table)
            .rowSchema(null) // forTable() sets the table schema as the row schema; 1.12 writes no row data
            .withSpec(spec)
            .withPartition(partition)
            .withKeyMetadata(file.keyMetadata())
            .overwrite()
            .buildPositionWriter();
    try (PositionDeleteWriter<Record> closing = w) {
      PositionDelete<Record> pd = PositionDelete.create();
      for (Map.Entry<String, ? extends Iterable<Long>> e : hits.entrySet())
        for (long p : e.getValue()) closing.write(pd.set(e.getKey(), p));
    }
    return w.toDeleteFile();
  }
}
