/** Field ids travel on Arrow fields as metadata; arrow-rs maps this key to Parquet's field_id both ways. */
import * as arrow from 'apache-arrow';

export const FIELD_ID_KEY = 'PARQUET:field_id';

export function fieldIdOf(field: arrow.Field): number | undefined {
  const raw = field.metadata.get(FIELD_ID_KEY);
  if (raw === undefined) return undefined;
  const id = Number(raw);
  return Number.isInteger(id) ? id : undefined;
}

export function withFieldId(metadata: Map<string, string> | undefined, id: number): Map<string, string> {
  const m = new Map(metadata ?? []);
  m.set(FIELD_ID_KEY, String(id));
  return m;
}
