package floe.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.StreamTableScan;
import org.apache.paimon.table.source.TableRead;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;

/**
 * A streaming consumer of a Paimon table's changelog (StreamTableScan): reads every plan until no new
 * snapshot is left and prints the rows with their row kinds in reading order, plus the checkpoint (the
 * next snapshot id) to resume from. spec {database, table, from?: nextSnapshotId, options?: {...}}.
 */
final class PaimonStreamOracle {
  private PaimonStreamOracle() {}

  static ObjectNode stream(Catalog catalog, JsonNode spec) throws Exception {
    Map<String, String> dyn = new HashMap<>();
    spec.path("options").fields().forEachRemaining(e -> dyn.put(e.getKey(), e.getValue().asText()));
    Table table = catalog.getTable(PaimonOracle.ident(spec)).copy(dyn);
    List<DataField> fields = table.rowType().getFields();
    List<InternalRow.FieldGetter> getters = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) getters.add(InternalRow.createFieldGetter(fields.get(i).type(), i));
    ReadBuilder rb = table.newReadBuilder();
    StreamTableScan scan = rb.newStreamScan();
    if (spec.hasNonNull("from")) scan.restore(spec.get("from").asLong());
    TableRead read = rb.newRead();
    ArrayNode rows = Canon.nodes().arrayNode();
    Long last = null;
    int idle = 0;
    for (int i = 0; i < 100000 && idle < 2; i++) {
      List<Split> splits = scan.plan().splits();
      Long cp = scan.checkpoint();
      if (splits.isEmpty()) {
        idle = java.util.Objects.equals(cp, last) ? idle + 1 : 0;
        last = cp;
        continue;
      }
      idle = 0;
      last = cp;
      try (RecordReader<InternalRow> reader = read.createReader(splits)) {
        reader.forEachRemaining(
            r -> {
              Map<String, Object> row = new LinkedHashMap<>();
              for (int k = 0; k < fields.size(); k++) {
                DataType t = fields.get(k).type();
                row.put(
                    fields.get(k).name(),
                    Canon.render(PaimonOracle.kind(t), PaimonOracle.toJava(t, getters.get(k).getFieldOrNull(r))));
              }
              ObjectNode o = rows.addObject();
              o.put("kind", r.getRowKind().shortString());
              o.put("line", Canon.line(row));
            });
      }
    }
    ObjectNode out = Canon.nodes().objectNode();
    out.set("rows", rows);
    Long next = scan.checkpoint();
    out.put("next", next == null ? null : next.toString());
    return out;
  }
}
