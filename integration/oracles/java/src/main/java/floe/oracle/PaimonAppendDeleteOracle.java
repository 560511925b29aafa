package floe.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.deletionvectors.BitmapDeletionVector;
import org.apache.paimon.deletionvectors.DeletionVector;
import org.apache.paimon.deletionvectors.append.BaseAppendDeleteFileMaintainer;
import org.apache.paimon.index.IndexFileHandler;
import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.manifest.FileKind;
import org.apache.paimon.manifest.IndexManifestEntry;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.TableRead;
import org.apache.paimon.types.DataField;

/**
 * A row-level DELETE on an append table with deletion vectors, as Paimon's Spark DELETE does it
 * (PaimonSparkWriter.persistDeletionVectors): the positions of the matching rows of each data file go
 * into a DeletionVector, handed to the bucket's BaseAppendDeleteFileMaintainer (forUnawareAppend or
 * forBucketedAppend), whose persisted index entries are committed as the DataIncrement's index files.
 * Spec: {database, table, column, values: [...]} — rows whose column's rendered value is in values.
 */
final class PaimonAppendDeleteOracle {
  private PaimonAppendDeleteOracle() {}

  static ObjectNode delete(Catalog catalog, JsonNode spec) throws Exception {
    FileStoreTable table = (FileStoreTable) catalog.getTable(PaimonOracle.ident(spec));
    String column = spec.get("column").asText();
    Set<String> values = new HashSet<>();
    spec.get("values").forEach(v -> values.add(v.asText()));
    List<DataField> fields = table.rowType().getFields();
    int idx = table.rowType().getFieldIndex(column);
    InternalRow.FieldGetter getter = InternalRow.createFieldGetter(fields.get(idx).type(), idx);
    Snapshot snapshot = table.snapshotManager().latestSnapshot();
    boolean unaware = table.bucketMode() == BucketMode.BUCKET_UNAWARE;

    // (partition, bucket) → data file → deleted positions
    Map<String, Object[]> groups = new LinkedHashMap<>();
    Map<String, Map<String, DeletionVector>> dvs = new LinkedHashMap<>();
    TableRead read = table.newReadBuilder().newRead();
    int deleted = 0;
    for (ManifestEntry e : table.store().newScan().withSnapshot(snapshot).plan().files()) {
      DataSplit split =
          DataSplit.builder()
              .withSnapshot(snapshot.id())
              .withPartition(e.partition())
              .withBucket(e.bucket())
              .withTotalBuckets(e.totalBuckets())
              .withBucketPath(table.store().pathFactory().bucketPath(e.partition(), e.bucket()).toString())
              .withDataFiles(Collections.singletonList(e.file()))
              .rawConvertible(true)
              .build();
      BitmapDeletionVector dv = new BitmapDeletionVector();
      long[] pos = {0};
      try (RecordReader<InternalRow> reader = read.createReader(split)) {
        reader.forEachRemaining(
            r -> {
              Object v = getter.getFieldOrNull(r);
              if (v != null && values.contains(v.toString())) dv.delete(pos[0]);
              pos[0]++;
            });
      }
      if (dv.isEmpty()) continue;
      deleted += (int) dv.getCardinality();
      String key = java.util.Arrays.toString(e.partition().toBytes()) + "|" + e.bucket();
      groups.put(key, new Object[] {e.partition(), e.bucket()});
      dvs.computeIfAbsent(key, k -> new LinkedHashMap<>()).put(e.file().fileName(), dv);
    }

    IndexFileHandler handler = table.store().newIndexFileHandler();
    List<CommitMessage> messages = new ArrayList<>();
    for (Map.Entry<String, Object[]> g : groups.entrySet()) {
      BinaryRow partition = (BinaryRow) g.getValue()[0];
      int bucket = (Integer) g.getValue()[1];
      BaseAppendDeleteFileMaintainer m =
          unaware
              ? BaseAppendDeleteFileMaintainer.forUnawareAppend(handler, snapshot, partition)
              : BaseAppendDeleteFileMaintainer.forBucketedAppend(handler, snapshot, partition, bucket);
      for (Map.Entry<String, DeletionVector> d : dvs.get(g.getKey()).entrySet())
        m.notifyNewDeletionVector(d.getKey(), d.getValue());
      List<IndexFileMeta> added = new ArrayList<>();
      List<IndexFileMeta> removed = new ArrayList<>();
      for (IndexManifestEntry ie : m.persist())
        (ie.kind() == FileKind.ADD ? added : removed).add(ie.indexFile());
      messages.add(
          new CommitMessageImpl(
              m.getPartition(),
              m.getBucket(),
              null,
              new DataIncrement(
                  Collections.emptyList(), Collections.emptyList(), Collections.emptyList(), added, removed),
              CompactIncrement.emptyIncrement()));
    }
    if (!messages.isEmpty()) {
      try (BatchTableCommit c = table.newBatchWriteBuilder().newCommit()) {
        c.commit(messages);
      }
    }
    Long snap = ((FileStoreTable) catalog.getTable(PaimonOracle.ident(spec))).snapshotManager().latestSnapshotId();
    ObjectNode out = Canon.nodes().objectNode();
    out.put("snapshotId", snap == null ? null : snap.toString());
    out.put("deleted", deleted);
    return out;
  }
}
