package floe.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.MultisetType;
import org.apache.paimon.types.RowType;

/**
 * Nested Paimon types (ARRAY, MAP, MULTISET, ROW) for the Paimon oracle.
 *
 * <p>Types come as JSON objects: {type: "ARRAY[ NOT NULL]", element}, {type: "MAP…", key, value},
 * {type: "MULTISET…", element}, {type: "ROW…", fields: [{name, type}]}; leaves are the type strings
 * PaimonOracle.parseType takes. Input values: ARRAY a JSON array, MAP and MULTISET a JSON array of
 * [key, value] / [element, count] pairs, ROW a JSON object by field name.
 *
 * <p>A nested value renders as canonical JSON text (like IcebergOracle's nested values): arrays as
 * arrays, ROW as an object with sorted keys, MAP/MULTISET as an object keyed by the rendered key text
 * (sorted); leaves by Canon.render.
 */
final class PaimonNested {
  private static int nextRowFieldId = 1_000_000;

  private PaimonNested() {}

  static boolean isNested(DataType t) {
    switch (t.getTypeRoot()) {
      case ARRAY:
      case MAP:
      case MULTISET:
      case ROW:
        return true;
      default:
        return false;
    }
  }

  static DataType type(JsonNode n) {
    if (n.isTextual()) return PaimonOracle.parseType(n.asText());
    String head = n.path("type").asText().trim().toUpperCase();
    boolean notNull = head.endsWith("NOT NULL");
    DataType t;
    if (head.startsWith("ARRAY")) t = DataTypes.ARRAY(type(n.get("element")));
    else if (head.startsWith("MULTISET")) t = DataTypes.MULTISET(type(n.get("element")));
    else if (head.startsWith("MAP")) t = DataTypes.MAP(type(n.get("key")), type(n.get("value")));
    else if (head.startsWith("ROW")) {
      List<DataField> fields = new ArrayList<>();
      // ids are reassigned by the schema builder (RowType reassignment on createTable)
      for (JsonNode f : n.get("fields")) {
        fields.add(new DataField(nextRowFieldId++, f.get("name").asText(), type(f.get("type"))));
      }
      t = DataTypes.ROW(fields.toArray(new DataField[0]));
    } else {
      throw new IllegalArgumentException("unsupported nested type " + n);
    }
    return t.copy(!notNull);
  }

  static Object toInternal(DataType type, JsonNode v) {
    if (v == null || v.isNull()) return null;
    switch (type.getTypeRoot()) {
      case ARRAY:
        {
          DataType e = ((ArrayType) type).getElementType();
          Object[] out = new Object[v.size()];
          for (int i = 0; i < v.size(); i++) out[i] = PaimonOracle.toInternal(e, v.get(i));
          return new GenericArray(out);
        }
      case MAP:
      case MULTISET:
        {
          DataType k =
              type instanceof MapType
                  ? ((MapType) type).getKeyType()
                  : ((MultisetType) type).getElementType();
          DataType x = type instanceof MapType ? ((MapType) type).getValueType() : DataTypes.INT();
          Map<Object, Object> m = new LinkedHashMap<>();
          for (JsonNode pair : v) {
            m.put(PaimonOracle.toInternal(k, pair.get(0)), PaimonOracle.toInternal(x, pair.get(1)));
          }
          return new GenericMap(m);
        }
      case ROW:
        {
          List<DataField> fs = ((RowType) type).getFields();
          GenericRow r = new GenericRow(fs.size());
          for (int i = 0; i < fs.size(); i++) {
            r.setField(i, PaimonOracle.toInternal(fs.get(i).type(), v.get(fs.get(i).name())));
          }
          return r;
        }
      default:
        throw new IllegalArgumentException("not a nested type " + type);
    }
  }

  /** Canonical JSON text of a nested internal value. */
  static Object render(DataType type, Object internal) {
    if (internal == null) return null;
    try {
      return Canon.JSON.writeValueAsString(tree(type, internal));
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }

  private static Object tree(DataType type, Object v) {
    if (v == null) return null;
    switch (type.getTypeRoot()) {
      case ARRAY:
        {
          DataType e = ((ArrayType) type).getElementType();
          InternalArray a = (InternalArray) v;
          InternalArray.ElementGetter g = InternalArray.createElementGetter(e);
          List<Object> out = new ArrayList<>();
          for (int i = 0; i < a.size(); i++) out.add(tree(e, g.getElementOrNull(a, i)));
          return out;
        }
      case MAP:
      case MULTISET:
        {
          DataType k =
              type instanceof MapType
                  ? ((MapType) type).getKeyType()
                  : ((MultisetType) type).getElementType();
          DataType x = type instanceof MapType ? ((MapType) type).getValueType() : DataTypes.INT();
          InternalMap m = (InternalMap) v;
          InternalArray.ElementGetter kg = InternalArray.createElementGetter(k);
          InternalArray.ElementGetter vg = InternalArray.createElementGetter(x);
          Map<String, Object> out = new TreeMap<>();
          for (int i = 0; i < m.size(); i++) {
            out.put(
                String.valueOf(tree(k, kg.getElementOrNull(m.keyArray(), i))),
                tree(x, vg.getElementOrNull(m.valueArray(), i)));
          }
          return out;
        }
      case ROW:
        {
          List<DataField> fs = ((RowType) type).getFields();
          InternalRow r = (InternalRow) v;
          Map<String, Object> out = new TreeMap<>();
          for (int i = 0; i < fs.size(); i++) {
            DataType ft = fs.get(i).type();
            out.put(fs.get(i).name(), tree(ft, InternalRow.createFieldGetter(ft, i).getFieldOrNull(r)));
          }
          return out;
        }
      default:
        return Canon.render(PaimonOracle.kind(type), PaimonOracle.toJava(type, v));
    }
  }
}
