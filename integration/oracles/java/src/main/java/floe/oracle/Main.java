package floe.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Command-line entry point. One command per process; JSON specs come from --spec FILE or stdin.
 *
 * <pre>
 *   iceberg-write  DIR            spec {formatVersion, schema, partitionSpec, identifierFields, properties, ops}
 *   iceberg-ops    DIR            spec {ops}  (existing table)
 *   iceberg-append DIR            spec {rows}
 *   iceberg-delete DIR            spec {mode: "eq"|"pos", rows | where, fields?}
 *   iceberg-read   DIR|METADATA   [--snapshot ID | --ref NAME] [--count]
 *   iceberg-info   DIR|METADATA   snapshots (manifest list, manifests, live files), refs, statistics
 *   iceberg-expire DIR            spec {olderThanMs?, retainLast?, snapshotIds?, delete?: false}: Java's
 *                                 ExpireSnapshots; prints {deleted (collected, deleted only if delete), info}
 *   paimon-write   WAREHOUSE      spec {database, table, fields, primaryKeys, partitionKeys, options, commits}
 *                                 or {tables: [spec, ...]} (prints an array of results)
 *   paimon-read    WAREHOUSE      spec {database, table, tag?}  [--snapshot ID] [--count]
 *   paimon-stream  WAREHOUSE      spec {database, table, from?, options?}: a streaming changelog read
 *                                 until no snapshot is left; prints {rows: [{kind, line}], next}
 *   paimon-compact WAREHOUSE      spec {database, table, full?: true}  (Paimon's own compaction, one commit;
 *                                 bucket-unaware tables: AppendCompactCoordinator + AppendCompactTask)
 *   paimon-tag     WAREHOUSE      spec {database, table, name, snapshotId}
 *   paimon-info    WAREHOUSE      spec {database, table}: snapshots and tags with the files each reaches
 *   paimon-expire  WAREHOUSE      spec {database, table, retainMin, retainMax?, timeRetainMs?, maxDeletes?}
 *   rest-server    WAREHOUSE      --backend jdbc:sqlite:FILE: REST catalog server on 127.0.0.1; prints
 *                                 {"port","uri"}, serves until stdin closes (not available under `serve`);
 *                                 $FLOE_ORACLE_BACKEND_PROPERTIES: JSON catalog properties of its backend
 *   versions                      {"iceberg","paimon","icebergRestFixture"}: the engines this build runs
 * </pre>
 *
 * The iceberg-* commands take {@code --catalog jdbc:sqlite:FILE|rest:URL [--warehouse DIR]
 * [--catalog-name NAME] [--catalog-properties JSON]} to go through a catalog; the table argument is then
 * {@code ns.table}.
 *
 * Write commands print one JSON object; read commands print sorted canonical JSON lines (or {"count":N}).
 * Failures print {"error": ...} on stderr and exit 1.
 */
public final class Main {
  private Main() {}

  public static void main(String[] argv) {
    // Everything the libraries print goes to stderr; stdout carries only our JSON.
    PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
    System.setOut(System.err);
    try {
      if (argv.length > 0 && argv[0].equals("serve")) {
        serve(out);
        System.exit(0);
      }
      if (argv.length > 0 && argv[0].equals("versions")) {
        out.println(Versions.describe());
        System.exit(0);
      }
      if (argv.length > 0 && argv[0].equals("rest-server")) {
        Map<String, String> f = new HashMap<>();
        for (int i = 2; i + 1 < argv.length; i += 2) f.put(argv[i], argv[i + 1]);
        if (argv.length < 2 || !f.containsKey("--backend")) {
          throw new IllegalArgumentException("usage: rest-server WAREHOUSE --backend jdbc:sqlite:FILE");
        }
        // backend catalog properties come from the environment: they may hold the S3 keys of the catalog
        CatalogOracle.serveRest(
            argv[1], f.get("--backend"), jsonProps(System.getenv("FLOE_ORACLE_BACKEND_PROPERTIES")), out, System.in);
        System.exit(0);
      }
      run(argv, out, null);
      out.flush();
      System.exit(0);
    } catch (Throwable t) {
      ObjectNode err = Canon.nodes().objectNode();
      err.put("error", t.getClass().getName() + ": " + t.getMessage());
      Throwable c = t.getCause();
      if (c != null) err.put("cause", c.getClass().getName() + ": " + c.getMessage());
      System.err.println(err.toString());
      t.printStackTrace(System.err);
      System.exit(1);
    }
  }

  /**
   * Request loop for callers that make many calls (one JVM start instead of one per call): each stdin line
   * is {"argv": [...], "input": spec-or-null}; each reply is one stdout line {"ok": true, "stdout": "..."} or
   * {"ok": false, "error": "...", "trace": "..."}. Ends at EOF.
   */
  private static void serve(PrintStream out) throws Exception {
    java.io.BufferedReader in =
        new java.io.BufferedReader(new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isBlank()) continue;
      ObjectNode reply = Canon.nodes().objectNode();
      java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
      try (PrintStream captured = new PrintStream(buf, true, StandardCharsets.UTF_8)) {
        JsonNode req = Canon.JSON.readTree(line);
        List<String> args = new ArrayList<>();
        req.get("argv").forEach(a -> args.add(a.asText()));
        JsonNode input = req.get("input");
        run(args.toArray(new String[0]), captured, input == null || input.isNull() ? null : input);
        captured.flush();
        reply.put("ok", true);
        reply.put("stdout", buf.toString(StandardCharsets.UTF_8));
      } catch (Throwable t) {
        reply.put("ok", false);
        reply.put("error", t.getClass().getName() + ": " + t.getMessage());
        java.io.StringWriter sw = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(sw));
        reply.put("trace", sw.toString());
      }
      out.println(reply.toString());
      out.flush();
    }
  }

  private static void run(String[] argv, PrintStream out, JsonNode inline) throws Exception {
    List<String> positional = new ArrayList<>();
    Map<String, String> flags = new HashMap<>();
    for (int i = 0; i < argv.length; i++) {
      String a = argv[i];
      if (a.equals("--count")) flags.put("count", "true");
      else if (a.startsWith("--")) {
        if (i + 1 >= argv.length) throw new IllegalArgumentException("missing value for " + a);
        flags.put(a.substring(2), argv[++i]);
      } else positional.add(a);
    }
    if (positional.size() < 2) {
      throw new IllegalArgumentException("usage: <command> <table-or-warehouse> [options]");
    }
    if (flags.containsKey("s3-endpoint")) {
      throw new UnsupportedOperationException(
          "S3 tables are not supported by this oracle build yet (local paths only)");
    }
    String cmd = positional.get(0);
    String location = positional.get(1);
    Long snapshot = flags.containsKey("snapshot") ? Long.valueOf(flags.get("snapshot")) : null;
    boolean count = flags.containsKey("count");

    if (flags.containsKey("catalog") && cmd.startsWith("iceberg-")) {
      org.apache.iceberg.catalog.Catalog catalog =
          CatalogOracle.open(
              flags.get("catalog"),
              flags.get("warehouse"),
              flags.getOrDefault("catalog-name", "oracle"),
              jsonProps(flags.get("catalog-properties")));
      try {
        runIceberg(cmd, location, flags, inline, out, new IcebergOracle(catalog), snapshot, count);
      } finally {
        CatalogOracle.close(catalog);
      }
      return;
    }
    if (cmd.startsWith("iceberg-")) {
      runIceberg(cmd, location, flags, inline, out, new IcebergOracle(), snapshot, count);
      return;
    }
    switch (cmd) {
      case "paimon-write":
        {
          // {"tables": [spec, ...]} writes several tables in one JVM start (tests are CPU-bound).
          JsonNode s = spec(flags, inline);
          try (PaimonOracle p = new PaimonOracle(location)) {
            if (s.has("tables")) {
              ArrayNode results = Canon.nodes().arrayNode();
              for (JsonNode t : s.get("tables")) results.add(p.write(t));
              out.println(results.toString());
            } else {
              out.println(p.write(s).toString());
            }
          }
          break;
        }
      case "paimon-compact":
        try (PaimonOracle p = new PaimonOracle(location)) {
          out.println(p.compact(spec(flags, inline)).toString());
        }
        break;
      case "paimon-tag":
        try (PaimonOracle p = new PaimonOracle(location)) {
          MaintenanceOracle.paimonTag(p.catalog(), spec(flags, inline));
          out.println("{}");
        }
        break;
      case "paimon-info":
        try (PaimonOracle p = new PaimonOracle(location)) {
          out.println(MaintenanceOracle.paimonInfo(p.catalog(), spec(flags, inline)).toString());
        }
        break;
      case "paimon-expire":
        try (PaimonOracle p = new PaimonOracle(location)) {
          out.println(MaintenanceOracle.paimonExpire(p.catalog(), spec(flags, inline)).toString());
        }
        break;
      case "paimon-stream":
        try (PaimonOracle p = new PaimonOracle(location)) {
          out.println(PaimonStreamOracle.stream(p.catalog(), spec(flags, inline)).toString());
        }
        break;
      case "paimon-write-dynamic":
        try (PaimonOracle p = new PaimonOracle(location)) {
          out.println(PaimonDynamicBucketWrite.write(p, spec(flags, inline)).toString());
        }
        break;
      case "paimon-append-delete":
        try (PaimonOracle p = new PaimonOracle(location)) {
          out.println(PaimonAppendDeleteOracle.delete(p.catalog(), spec(flags, inline)).toString());
        }
        break;
      case "paimon-read":
        try (PaimonOracle p = new PaimonOracle(location)) {
          emit(out, p.read(spec(flags, inline), snapshot), count);
        }
        break;
      default:
        throw new IllegalArgumentException("unknown command " + cmd);
    }
  }

  private static void runIceberg(
      String cmd,
      String location,
      Map<String, String> flags,
      JsonNode inline,
      PrintStream out,
      IcebergOracle oracle,
      Long snapshot,
      boolean count)
      throws Exception {
    switch (cmd) {
      case "iceberg-write":
      case "iceberg-ops":
        out.println(oracle.write(location, spec(flags, inline)).toString());
        break;
      case "iceberg-append":
        {
          ObjectNode s = Canon.nodes().objectNode();
          ArrayNode ops = s.putArray("ops");
          ops.addObject().put("op", "append").set("rows", spec(flags, inline).get("rows"));
          out.println(oracle.write(location, s).toString());
          break;
        }
      case "iceberg-delete":
        {
          JsonNode in = spec(flags, inline);
          String mode = in.path("mode").asText("eq");
          ObjectNode op = ((ObjectNode) in.deepCopy());
          op.remove("mode");
          op.put("op", mode.equals("pos") ? "delete-pos" : "delete-eq");
          ObjectNode s = Canon.nodes().objectNode();
          s.putArray("ops").add(op);
          out.println(oracle.write(location, s).toString());
          break;
        }
      case "iceberg-read":
        if (flags.containsKey("ref")) {
          // a branch or tag: read its head snapshot
          org.apache.iceberg.Snapshot head = oracle.load(location).snapshot(flags.get("ref"));
          if (head == null) throw new IllegalArgumentException("no ref " + flags.get("ref") + " in " + location);
          snapshot = head.snapshotId();
        }
        emit(out, oracle.read(location, snapshot), count);
        break;
      case "iceberg-info":
        out.println(MaintenanceOracle.icebergInfo(oracle.load(location)).toString());
        break;
      case "iceberg-expire":
        out.println(MaintenanceOracle.icebergExpire(oracle.load(location), spec(flags, inline)).toString());
        break;
      default:
        throw new IllegalArgumentException("unknown command " + cmd);
    }
  }

  private static void emit(PrintStream out, List<String> lines, boolean count) {
    if (count) {
      out.println("{\"count\":" + lines.size() + "}");
      return;
    }
    StringBuilder sb = new StringBuilder();
    for (String l : lines) sb.append(l).append('\n');
    out.print(sb);
  }

  /** A JSON object of string properties (null or empty: none). */
  static Map<String, String> jsonProps(String json) throws Exception {
    Map<String, String> out = new HashMap<>();
    if (json == null || json.isBlank()) return out;
    Canon.JSON.readTree(json).fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
    return out;
  }

  private static JsonNode spec(Map<String, String> flags, JsonNode inline) throws Exception {
    if (inline != null) return inline;
    String f = flags.get("spec");
    if (f != null && !f.equals("-")) return Canon.JSON.readTree(new File(f));
    return Canon.JSON.readTree(System.in);
  }
}
