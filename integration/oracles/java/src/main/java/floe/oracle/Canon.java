package floe.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Canonical value rendering shared by every oracle (must match integration/oracles/canonical.ts):
 * int → JSON number; long → decimal string; float/double → JSON number (NaN/±Infinity as strings);
 * decimal(p,s) → plain string with exactly s fraction digits; date → YYYY-MM-DD; time → HH:MM:SS.ffffff;
 * timestamp → YYYY-MM-DDTHH:MM:SS.ffffff; timestamptz → same in UTC + "+00:00"; timestamp_ns → 9 digits;
 * string/uuid → text; binary/fixed → lowercase hex; boolean → JSON boolean; null → null.
 * Nested values (struct/list/map) render as a canonical JSON string (sorted object keys).
 *
 * The "kind" strings are Iceberg primitive type names; Paimon types are mapped onto them.
 */
final class Canon {
  static final ObjectMapper JSON =
      new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

  private static final DateTimeFormatter TIME_US = DateTimeFormatter.ofPattern("HH:mm:ss.SSSSSS");
  private static final DateTimeFormatter TS_US =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS");
  private static final DateTimeFormatter TS_NS =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSS");

  private Canon() {}

  /** Render a Java value of the given canonical kind ("int", "long", "decimal(38,10)", ...). */
  static Object render(String kind, Object v) {
    if (v == null) return null;
    String k = kind.toLowerCase();
    if (k.startsWith("decimal")) {
      int scale = decimalScale(k);
      return ((BigDecimal) v).setScale(scale, RoundingMode.UNNECESSARY).toPlainString();
    }
    if (k.startsWith("fixed")) k = "binary";
    switch (k) {
      case "int":
        return ((Number) v).intValue();
      case "long":
        return Long.toString(((Number) v).longValue());
      case "float":
      case "double":
        {
          double d = ((Number) v).doubleValue();
          if (Double.isNaN(d)) return "NaN";
          if (Double.isInfinite(d)) return d > 0 ? "Infinity" : "-Infinity";
          return d;
        }
      case "boolean":
        return v;
      case "string":
      case "uuid":
        return k.equals("uuid") ? v.toString().toLowerCase() : v.toString();
      case "date":
        return ((LocalDate) v).toString();
      case "time":
        return ((LocalTime) v).format(TIME_US);
      case "timestamp":
        return ((LocalDateTime) v).format(TS_US);
      case "timestamp_ns":
        return ((LocalDateTime) v).format(TS_NS);
      case "timestamptz":
        return toUtc(v).format(TS_US) + "+00:00";
      case "timestamptz_ns":
        return toUtc(v).format(TS_NS) + "+00:00";
      case "binary":
        return hex(v);
      default:
        throw new IllegalArgumentException("canonical rendering: unsupported kind " + kind);
    }
  }

  private static LocalDateTime toUtc(Object v) {
    if (v instanceof OffsetDateTime) {
      return ((OffsetDateTime) v).withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime();
    }
    if (v instanceof Instant) return LocalDateTime.ofInstant((Instant) v, ZoneOffset.UTC);
    throw new IllegalArgumentException("timestamptz value of class " + v.getClass());
  }

  static String hex(Object v) {
    byte[] bytes;
    if (v instanceof ByteBuffer) {
      ByteBuffer b = ((ByteBuffer) v).duplicate();
      bytes = new byte[b.remaining()];
      b.get(bytes);
    } else {
      bytes = (byte[]) v;
    }
    return HexFormat.of().formatHex(bytes);
  }

  static int decimalScale(String kind) {
    String inner = kind.substring(kind.indexOf('(') + 1, kind.indexOf(')'));
    return Integer.parseInt(inner.split(",")[1].trim());
  }

  static int decimalPrecision(String kind) {
    String inner = kind.substring(kind.indexOf('(') + 1, kind.indexOf(')'));
    return Integer.parseInt(inner.split(",")[0].trim());
  }

  // ---- parsing of input values (lenient: accepts canonical strings and plain JSON numbers) ----

  static Integer parseInt(JsonNode n) {
    return n.isTextual() ? Integer.valueOf(n.asText()) : Integer.valueOf(n.intValue());
  }

  static Long parseLong(JsonNode n) {
    return n.isTextual() ? Long.valueOf(n.asText()) : Long.valueOf(n.longValue());
  }

  static Double parseDouble(JsonNode n) {
    return n.isTextual() ? Double.valueOf(n.asText()) : Double.valueOf(n.doubleValue());
  }

  static BigDecimal parseDecimal(JsonNode n, int scale) {
    BigDecimal bd = n.isTextual() ? new BigDecimal(n.asText()) : n.decimalValue();
    return bd.setScale(scale, RoundingMode.UNNECESSARY);
  }

  static LocalDate parseDate(JsonNode n) {
    return LocalDate.parse(n.asText());
  }

  static LocalTime parseTime(JsonNode n) {
    return LocalTime.parse(n.asText());
  }

  static LocalDateTime parseTimestamp(JsonNode n) {
    return LocalDateTime.parse(n.asText());
  }

  /** ISO timestamp with offset ("Z" or "+hh:mm"); without an offset the value is taken as UTC. */
  static OffsetDateTime parseTimestampTz(JsonNode n) {
    String s = n.asText();
    boolean hasOffset =
        s.endsWith("Z") || s.matches(".*[+-]\\d\\d:\\d\\d$") || s.matches(".*[+-]\\d\\d\\d\\d$");
    if (!hasOffset) return LocalDateTime.parse(s).atOffset(ZoneOffset.UTC);
    return OffsetDateTime.parse(s).withOffsetSameInstant(ZoneOffset.UTC);
  }

  static byte[] parseBinary(JsonNode n) {
    return HexFormat.of().parseHex(n.asText());
  }

  static UUID parseUuid(JsonNode n) {
    return UUID.fromString(n.asText());
  }

  static boolean parseBoolean(JsonNode n) {
    return n.isTextual() ? Boolean.parseBoolean(n.asText()) : n.booleanValue();
  }

  /** Micros since epoch of a LocalDateTime, for sanity checks and Paimon conversion. */
  static long micros(LocalDateTime t) {
    return t.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + t.get(ChronoField.MICRO_OF_SECOND);
  }

  /** Serialize one row (column → canonical value) as a JSON line with sorted keys. */
  static String line(Map<String, Object> row) {
    try {
      return JSON.writeValueAsString(new TreeMap<>(row));
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }

  /** Sorted canonical JSON lines. */
  static List<String> sortedLines(List<Map<String, Object>> rows) {
    List<String> out = new ArrayList<>(rows.size());
    for (Map<String, Object> r : rows) out.add(line(r));
    out.sort(null);
    return out;
  }

  static JsonNodeFactory nodes() {
    return JsonNodeFactory.instance;
  }
}
