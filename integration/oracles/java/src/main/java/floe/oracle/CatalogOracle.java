package floe.oracle;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;

/**
 * Iceberg catalogs for the catalog interop tests:
 *
 * <ul>
 *   <li>{@code jdbc:sqlite:FILE} — Java's JdbcCatalog on the SQLite file PyIceberg's SqlCatalog also uses
 *       (same iceberg_tables rows when both use the same catalog name);
 *   <li>{@code rest:URL} — Java's RESTCatalog client;
 *   <li>{@link #serveRest} — the reference REST catalog server: iceberg-core's RESTCatalogAdapter and
 *       RESTCatalogServlet (what Iceberg's RESTCatalogServer fixture runs) over a JdbcCatalog backend.
 * </ul>
 */
final class CatalogOracle {
  private CatalogOracle() {}

  static final String HADOOP_IO = "org.apache.iceberg.hadoop.HadoopFileIO";

  static final String S3_IO = "org.apache.iceberg.aws.s3.S3FileIO";

  static Catalog open(String spec, String warehouse, String name) {
    return open(spec, warehouse, name, Map.of());
  }

  /**
   * `extra` are catalog properties on top of the defaults (HadoopFileIO, the warehouse): e.g. {@code
   * credential} for OAuth2 client credentials, {@code header.X-Iceberg-Access-Delegation} to ask for vended
   * credentials, {@code io-impl} = {@link #S3_IO} with {@code s3.endpoint} / {@code client.region} for tables
   * on S3 (keys from the catalog's vended credentials or the given {@code s3.*-key} properties).
   */
  static Catalog open(String spec, String warehouse, String name, Map<String, String> extra) {
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.FILE_IO_IMPL, HADOOP_IO);
    if (warehouse != null) props.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse);
    props.putAll(extra);
    if (spec.startsWith("jdbc:")) {
      props.put(CatalogProperties.URI, spec);
      JdbcCatalog c = new JdbcCatalog();
      c.setConf(new Configuration());
      c.initialize(name, props);
      return c;
    }
    if (spec.startsWith("rest:")) {
      props.put(CatalogProperties.URI, spec.substring("rest:".length()));
      RESTCatalog c = new RESTCatalog();
      c.setConf(new Configuration());
      c.initialize(name, props);
      return c;
    }
    throw new IllegalArgumentException("--catalog must be jdbc:sqlite:FILE or rest:URL, got " + spec);
  }

  static void close(Catalog c) throws IOException {
    if (c instanceof Closeable) ((Closeable) c).close();
  }

  /** Creates `ident` (namespace too, when missing) with the given schema, spec and properties. */
  static Table create(Catalog catalog, String ident, Schema schema, PartitionSpec spec, Map<String, String> props) {
    TableIdentifier id = TableIdentifier.parse(ident);
    if (catalog instanceof SupportsNamespaces) {
      SupportsNamespaces ns = (SupportsNamespaces) catalog;
      if (!ns.namespaceExists(id.namespace())) ns.createNamespace(id.namespace());
    }
    return catalog.buildTable(id, schema).withPartitionSpec(spec).withProperties(props).create();
  }

  /**
   * Serves the REST catalog protocol on 127.0.0.1 (ephemeral port), backed by a JdbcCatalog on `jdbcUri`
   * with its warehouse at `warehouse` (and `backendProps`, e.g. S3FileIO for an S3 warehouse). Prints {"port": N, "uri": "..."} once listening; stops when stdin
   * reaches EOF (the test closes it, or the process is killed).
   */
  static void serveRest(
      String warehouse, String jdbcUri, Map<String, String> backendProps, PrintStream out, InputStream stdin)
      throws Exception {
    Catalog backend = open(jdbcUri, warehouse, "rest_backend", backendProps);
    RESTCatalogAdapter adapter = new RESTCatalogAdapter(backend);
    ServletContextHandler ctx = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
    ctx.addServlet(new ServletHolder(new RESTCatalogServlet(adapter)), "/*");
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    server.setHandler(ctx);
    server.start();
    int port = connector.getLocalPort();
    out.println("{\"port\":" + port + ",\"uri\":\"http://127.0.0.1:" + port + "\"}");
    out.flush();
    try {
      while (stdin.read() >= 0) {
        // wait for EOF
      }
    } finally {
      server.stop();
      adapter.close();
      close(backend);
    }
  }
}
