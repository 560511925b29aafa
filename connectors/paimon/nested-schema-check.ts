/**
 * Refusal, before anything is written, of tables whose live files hold a nested column under another
 * nested layout than the current schema's (a ROW member renamed, added, dropped or retyped by schema
 * evolution). The scan reads nested members by the names and units stored in the file and the writer
 * writes the current layout, so such a value cannot be carried over faithfully; the writer would refuse it
 * too (write-nested.ts), but only after having written files.
 */
import { FloeError } from '../../util/errors.js';
import type { PaimonTable } from './table.js';
import { typeToString, type PaimonType } from './types.js';
import { isNestedPaimonType } from './write-nested.js';

/** The nested layout that matters for reading a value back: member names, ids and types; nullability aside. */
function layout(t: PaimonType): string {
  switch (t.root) {
    case 'ARRAY':
    case 'MULTISET':
      return `${t.root}<${layout(t.element)}>`;
    case 'MAP':
      return `MAP<${layout(t.key)},${layout(t.value)}>`;
    case 'ROW':
      return `ROW<${t.fields.map((f) => `${f.id}:${f.name} ${layout(f.type)}`).join(',')}>`;
    default:
      return typeToString({ ...t, nullable: true });
  }
}

export function assertNestedLayoutsMatch(table: PaimonTable): void {
  const current = new Map(table.schema.fields.filter((f) => isNestedPaimonType(f.type)).map((f) => [f.id, f]));
  if (current.size === 0) return;
  const checked = new Set<number>([table.schema.id]);
  for (const file of table.files) {
    const id = file.meta.schemaId;
    if (checked.has(id)) continue;
    checked.add(id);
    const old = table.schemas.get(id);
    if (!old) continue; // the reader resolves such files by name; nothing nested to compare against
    for (const f of old.fields) {
      const now = current.get(f.id);
      if (!now || layout(now.type) === layout(f.type)) continue;
      throw new FloeError(
        'Unsupported',
        `cannot compact Paimon table ${table.location}: data file ${file.meta.fileName} holds column ${f.name} as ` +
          `${typeToString(f.type)} (schema ${id}) but the table now has ${typeToString(now.type)} (schema ${table.schema.id}); ` +
          'floe does not map nested members across schema changes (Java Paimon can: compact with it)',
        { context: { table: table.location, file: file.path, column: f.name } },
      );
    }
  }
}
