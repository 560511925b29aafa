package floe.oracle;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The releases this oracle build runs, read from the jars on its class path (printed by the test run). */
final class Versions {
  private Versions() {}

  private static final Pattern JAR_VERSION = Pattern.compile("-(\\d+\\.\\d+[^/]*?)(-tests)?\\.jar$");

  /** Version in the file name of the jar `c` was loaded from (the build's lib/ keeps Maven's names). */
  static String ofJar(Class<?> c) {
    String where = String.valueOf(c.getProtectionDomain().getCodeSource().getLocation());
    Matcher m = JAR_VERSION.matcher(where);
    return m.find() ? m.group(1) : "unknown (" + where + ")";
  }

  static String describe() {
    ObjectNode o = Canon.nodes().objectNode();
    o.put("iceberg", org.apache.iceberg.IcebergBuild.version());
    o.put("paimon", ofJar(org.apache.paimon.table.Table.class));
    o.put("icebergRestFixture", ofJar(org.apache.iceberg.rest.RESTCatalogAdapter.class));
    return o.toString();
  }
}
