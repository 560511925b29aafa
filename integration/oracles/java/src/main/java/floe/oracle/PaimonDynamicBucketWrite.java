package floe.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.UUID;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.index.HashBucketAssigner;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.RowPartitionKeyExtractor;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowKind;

/**
 * Writes into a dynamic-bucket primary-key table (bucket = -1), as Paimon's Flink/Spark sinks do: a
 * HashBucketAssigner (restored from the table's HASH index) picks each row's bucket, TableWrite keeps the
 * hash index. Spec as paimon-write (the table is created first when spec.fields is present).
 */
final class PaimonDynamicBucketWrite {
  private PaimonDynamicBucketWrite() {}

  static ObjectNode write(PaimonOracle oracle, JsonNode spec) throws Exception {
    if (spec.has("fields")) {
      ObjectNode create = ((ObjectNode) spec).deepCopy();
      create.remove("commits");
      oracle.write(create);
    }
    Catalog catalog = oracle.catalog();
    FileStoreTable table = (FileStoreTable) catalog.getTable(PaimonOracle.ident(spec));
    List<DataField> fields = table.rowType().getFields();
    RowPartitionKeyExtractor extractor = new RowPartitionKeyExtractor(table.schema());
    Integer maxBuckets = table.coreOptions().dynamicBucketMaxBuckets();
    HashBucketAssigner assigner =
        new HashBucketAssigner(
            table.snapshotManager(),
            UUID.randomUUID().toString(),
            table.store().newIndexFileHandler(),
            1,
            1,
            0,
            table.coreOptions().dynamicBucketTargetRowNum(),
            maxBuckets == null ? -1 : maxBuckets);
    ArrayNode commits = Canon.nodes().arrayNode();
    long n = 0;
    for (JsonNode commit : spec.path("commits")) {
      BatchWriteBuilder builder = table.newBatchWriteBuilder();
      try (IOManager io = IOManager.create(System.getProperty("java.io.tmpdir"));
          BatchTableWrite write = builder.newWrite()) {
        write.withIOManager(io);
        for (JsonNode change : commit) {
          RowKind kind = RowKind.fromShortString(change.path("kind").asText("+I"));
          JsonNode row = change.get("row");
          Object[] values = new Object[fields.size()];
          for (int i = 0; i < fields.size(); i++)
            values[i] = PaimonOracle.toInternal(fields.get(i).type(), row.get(fields.get(i).name()));
          GenericRow r = GenericRow.ofKind(kind, values);
          int bucket = assigner.assign(extractor.partition(r), extractor.trimmedPrimaryKey(r).hashCode());
          write.write(r, bucket);
        }
        List<CommitMessage> messages = write.prepareCommit();
        try (BatchTableCommit c = builder.newCommit()) {
          c.commit(messages);
        }
      }
      assigner.prepareCommit(n++);
      table = (FileStoreTable) catalog.getTable(PaimonOracle.ident(spec));
      Long snap = table.snapshotManager().latestSnapshotId();
      commits.addObject().put("snapshotId", snap == null ? null : snap.toString());
    }
    ObjectNode out = Canon.nodes().objectNode();
    out.put("tablePath", table.location().toString());
    out.set("commits", commits);
    return out;
  }
}
