package floe.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.options.Options;
import org.apache.paimon.rest.RESTCatalogServer;
import org.apache.paimon.rest.auth.BearTokenAuthProvider;
import org.apache.paimon.rest.responses.ConfigResponse;

/**
 * Paimon's own REST catalog server (RESTCatalogServer from paimon-core's test jar: the fixture Paimon's
 * RESTCatalogTest runs) on 127.0.0.1, serving a local warehouse directory, with a bearer token, plus a Java
 * Paimon client of it (a RESTCatalog) for the test's writes and reads. The server keeps its table registry
 * in memory, so every client of a run must talk to this one process.
 *
 * <pre>
 *   java -cp floe-oracle.jar floe.oracle.PaimonRestServer DATA_DIR [WAREHOUSE_NAME]
 * </pre>
 *
 * The token is $FLOE_PAIMON_REST_TOKEN, or a random one. Prints one line {"uri", "warehouse", "token",
 * "prefix"} then serves until stdin closes. Each stdin line is a request, each reply one stdout line
 * {"ok": true, ...} or {"ok": false, "error"}:
 *   {"cmd": "write", "spec": {...}}   PaimonOracle.write through the REST catalog (creates db and table)
 *   {"cmd": "read", "spec": {...}}    PaimonOracle.read: {"rows": [canonical JSON lines]}
 *   {"cmd": "deny", "database", "table"}   the server answers 403 to every request on that table
 *   {"cmd": "fail-after-commit", "on": bool}  the next commit is published, then answered 500
 *                                       (commitSuccessThrowException, one-shot); replies {"was"}
 */
public final class PaimonRestServer {
  private PaimonRestServer() {}

  public static void main(String[] argv) throws Exception {
    PrintStream out =
        new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
    System.setOut(System.err); // the libraries' output must not mix with our JSON lines
    if (argv.length < 1) throw new IllegalArgumentException("usage: PaimonRestServer DATA_DIR [WAREHOUSE_NAME]");
    String dataPath = argv[0];
    String warehouse = argv.length > 1 ? argv[1] : "floe_rest_wh";
    String env = System.getenv("FLOE_PAIMON_REST_TOKEN");
    String token = env != null && !env.isEmpty() ? env : UUID.randomUUID().toString();
    String prefix = "paimon";

    Map<String, String> defaults = new HashMap<>();
    defaults.put("prefix", prefix);
    ConfigResponse config = new ConfigResponse(defaults, new HashMap<>());
    RESTCatalogServer server =
        new RESTCatalogServer(dataPath, new BearTokenAuthProvider(token), config, warehouse);
    server.start();
    String uri = server.getUrl().replaceAll("/+$", "");

    ObjectNode hello = Canon.nodes().objectNode();
    hello.put("uri", uri);
    hello.put("warehouse", warehouse);
    hello.put("token", token);
    hello.put("prefix", prefix);
    out.println(hello.toString());

    Options client = new Options();
    client.set("metastore", "rest");
    client.set("uri", uri);
    client.set("warehouse", warehouse);
    client.set("token.provider", "bear");
    client.set("token", token);

    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try (PaimonOracle oracle = new PaimonOracle(client)) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isBlank()) continue;
        ObjectNode reply = Canon.nodes().objectNode();
        try {
          JsonNode req = Canon.JSON.readTree(line);
          switch (req.path("cmd").asText()) {
            case "write":
              reply.set("result", oracle.write(req.get("spec")));
              break;
            case "read":
              ArrayNode rows = reply.putArray("rows");
              for (String r : oracle.read(req.get("spec"), null)) rows.add(r);
              break;
            case "deny":
              server.addNoPermissionTable(
                  Identifier.create(req.get("database").asText(), req.get("table").asText()));
              break;
            case "fail-after-commit": // one-shot: the server clears it when it fails a commit
              reply.put("was", RESTCatalogServer.commitSuccessThrowException);
              RESTCatalogServer.commitSuccessThrowException = req.path("on").asBoolean();
              break;
            default:
              throw new IllegalArgumentException("unknown cmd: " + line);
          }
          reply.put("ok", true);
        } catch (Throwable t) {
          reply.put("ok", false);
          reply.put("error", t.getClass().getName() + ": " + t.getMessage());
          t.printStackTrace(System.err);
        }
        out.println(reply.toString());
      }
    } finally {
      server.shutdown();
    }
    System.exit(0);
  }
}
