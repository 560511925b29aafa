package floe.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.ExpireSnapshots;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.manifest.ManifestFileMeta;
import org.apache.paimon.manifest.ManifestList;
import org.apache.paimon.options.ExpireConfig;
import org.apache.paimon.table.FileStoreTable;

/**
 * What the maintenance interop tests need from the reference libraries: the files each snapshot and ref
 * reaches (read by the libraries themselves, independently of floe), the libraries' own snapshot expiry,
 * Iceberg branch/tag management (see IcebergOracle ops) and Paimon tags.
 */
final class MaintenanceOracle {
  private MaintenanceOracle() {}

  // ---------------------------------------------------------------- Iceberg

  /**
   * {metadataFile, currentSnapshotId, snapshots: [{snapshotId, parentId, timestampMs, operation, manifestList,
   * manifests, files}], refs: {name: {type, snapshotId, maxRefAgeMs, minSnapshotsToKeep, maxSnapshotAgeMs}},
   * statistics}. `files` are the data and delete files live in the snapshot (Java's ManifestReader).
   */
  static ObjectNode icebergInfo(Table table) throws IOException {
    ObjectNode out = Canon.nodes().objectNode();
    out.put("metadataFile", ((HasTableOperations) table).operations().current().metadataFileLocation());
    Snapshot cur = table.currentSnapshot();
    out.put("currentSnapshotId", cur == null ? null : Long.toString(cur.snapshotId()));
    ArrayNode snaps = out.putArray("snapshots");
    for (Snapshot s : table.snapshots()) {
      ObjectNode o = snaps.addObject();
      o.put("snapshotId", Long.toString(s.snapshotId()));
      o.put("parentId", s.parentId() == null ? null : Long.toString(s.parentId()));
      o.put("timestampMs", s.timestampMillis());
      o.put("operation", s.operation());
      o.put("manifestList", s.manifestListLocation());
      ArrayNode manifests = o.putArray("manifests");
      TreeSet<String> files = new TreeSet<>();
      for (ManifestFile m : s.allManifests(table.io())) {
        manifests.add(m.path());
        if (m.content() == ManifestContent.DATA) {
          try (ManifestReader<DataFile> r = ManifestFiles.read(m, table.io(), table.specs())) {
            for (DataFile f : r) files.add(f.location());
          }
        } else {
          try (ManifestReader<DeleteFile> r = ManifestFiles.readDeleteManifest(m, table.io(), table.specs())) {
            for (DeleteFile f : r) files.add(f.location());
          }
        }
      }
      ArrayNode fa = o.putArray("files");
      files.forEach(fa::add);
    }
    ObjectNode refs = out.putObject("refs");
    for (Map.Entry<String, SnapshotRef> e : table.refs().entrySet()) {
      SnapshotRef r = e.getValue();
      ObjectNode o = refs.putObject(e.getKey());
      o.put("type", r.isBranch() ? "branch" : "tag");
      o.put("snapshotId", Long.toString(r.snapshotId()));
      if (r.maxRefAgeMs() != null) o.put("maxRefAgeMs", r.maxRefAgeMs());
      if (r.minSnapshotsToKeep() != null) o.put("minSnapshotsToKeep", r.minSnapshotsToKeep());
      if (r.maxSnapshotAgeMs() != null) o.put("maxSnapshotAgeMs", r.maxSnapshotAgeMs());
    }
    ArrayNode stats = out.putArray("statistics");
    for (StatisticsFile f : table.statisticsFiles()) stats.add(f.path());
    return out;
  }

  /**
   * Java's own ExpireSnapshots. spec {olderThanMs?, retainLast?, snapshotIds?: [..], delete?: false}.
   * With delete false (default) the files Java would delete are only collected, never deleted — so the
   * run can target a copy of the metadata whose file paths still point at the original table.
   * Prints {deleted: [sorted paths], info: icebergInfo after the commit}.
   */
  static ObjectNode icebergExpire(Table table, JsonNode spec) throws IOException {
    ExpireSnapshots ex = table.expireSnapshots();
    if (spec.has("olderThanMs")) ex.expireOlderThan(spec.get("olderThanMs").asLong());
    if (spec.has("retainLast")) ex.retainLast(spec.get("retainLast").asInt());
    for (JsonNode id : spec.path("snapshotIds")) ex.expireSnapshotId(Long.parseLong(id.asText()));
    TreeSet<String> deleted = new TreeSet<>();
    boolean reallyDelete = spec.path("delete").asBoolean(false);
    ex.deleteWith(
        p -> {
          synchronized (deleted) {
            deleted.add(p);
          }
          if (reallyDelete) table.io().deleteFile(p);
        });
    ex.commit();
    table.refresh();
    ObjectNode out = Canon.nodes().objectNode();
    ArrayNode d = out.putArray("deleted");
    deleted.forEach(d::add);
    out.set("info", icebergInfo(table));
    return out;
  }

  // ---------------------------------------------------------------- Paimon

  static void paimonTag(Catalog catalog, JsonNode spec) throws Exception {
    org.apache.paimon.table.Table t = catalog.getTable(PaimonOracle.ident(spec));
    t.createTag(spec.get("name").asText(), spec.get("snapshotId").asLong());
  }

  /**
   * {earliest, latest, snapshots: [{id, timeMillis, commitKind, lists, manifests, files}], tags: [{name,
   * snapshotId, lists, manifests, files}]}: lists = manifest lists and the index manifest, manifests = every
   * manifest its lists name, files = names of the data files live in it (Java's scan plan).
   */
  static ObjectNode paimonInfo(Catalog catalog, JsonNode spec) throws Exception {
    FileStoreTable table = (FileStoreTable) catalog.getTable(PaimonOracle.ident(spec));
    ObjectNode out = Canon.nodes().objectNode();
    Long earliest = table.snapshotManager().earliestSnapshotId();
    Long latest = table.snapshotManager().latestSnapshotId();
    out.put("earliest", earliest == null ? null : earliest.toString());
    out.put("latest", latest == null ? null : latest.toString());
    ArrayNode snaps = out.putArray("snapshots");
    if (earliest != null) {
      for (long id = earliest; id <= latest; id++) {
        if (!table.snapshotManager().snapshotExists(id)) continue;
        paimonReach(table, table.snapshotManager().snapshot(id), snaps.addObject());
      }
    }
    ArrayNode tags = out.putArray("tags");
    for (Map.Entry<org.apache.paimon.Snapshot, List<String>> e : table.tagManager().tags().entrySet()) {
      for (String name : e.getValue()) {
        ObjectNode o = tags.addObject();
        o.put("name", name);
        paimonReach(table, e.getKey(), o);
      }
    }
    return out;
  }

  private static void paimonReach(FileStoreTable table, org.apache.paimon.Snapshot s, ObjectNode o) {
    o.put("id", Long.toString(s.id()));
    o.put("timeMillis", s.timeMillis());
    o.put("commitKind", s.commitKind().toString());
    ArrayNode lists = o.putArray("lists");
    for (String l : new String[] {s.baseManifestList(), s.deltaManifestList(), s.changelogManifestList(), s.indexManifest()}) {
      if (l != null) lists.add(l);
    }
    ManifestList ml = table.store().manifestListFactory().create();
    TreeSet<String> manifests = new TreeSet<>();
    for (ManifestFileMeta m : ml.readAllManifests(s)) manifests.add(m.fileName());
    ArrayNode ma = o.putArray("manifests");
    manifests.forEach(ma::add);
    TreeSet<String> files = new TreeSet<>();
    for (ManifestEntry e : table.store().newScan().withSnapshot(s).plan().files()) files.add(e.file().fileName());
    ArrayNode fa = o.putArray("files");
    files.forEach(fa::add);
  }

  /** Java Paimon's own expiry. spec {database, table, retainMin, retainMax?, timeRetainMs?, maxDeletes?}. */
  static ObjectNode paimonExpire(Catalog catalog, JsonNode spec) throws Exception {
    FileStoreTable table = (FileStoreTable) catalog.getTable(PaimonOracle.ident(spec));
    ExpireConfig.Builder b =
        ExpireConfig.builder()
            .snapshotRetainMin(spec.path("retainMin").asInt(10))
            .snapshotRetainMax(spec.path("retainMax").asInt(Integer.MAX_VALUE))
            .snapshotTimeRetain(Duration.ofMillis(spec.path("timeRetainMs").asLong(3_600_000L)))
            .snapshotMaxDeletes(spec.path("maxDeletes").asInt(Integer.MAX_VALUE));
    // decoupled changelog lifecycle: unset changelog values follow the snapshot ones (ExpireConfig.Builder)
    if (spec.has("changelogRetainMin")) b.changelogRetainMin(spec.get("changelogRetainMin").asInt());
    if (spec.has("changelogRetainMax")) b.changelogRetainMax(spec.get("changelogRetainMax").asInt());
    if (spec.has("changelogTimeRetainMs"))
      b.changelogTimeRetain(Duration.ofMillis(spec.get("changelogTimeRetainMs").asLong()));
    ExpireConfig cfg = b.build();
    int n = table.newExpireSnapshots().config(cfg).expire();
    ObjectNode out = Canon.nodes().objectNode();
    out.put("expired", n);
    // as a commit's expiry does it (AbstractFileStoreTable.newExpireRunnable): snapshots, then changelogs
    if (cfg.isChangelogDecoupled()) out.put("expiredChangelogs", table.newExpireChangelog().config(cfg).expire());
    return out;
  }
}
