/**
 * Issue 29.5: one footer reader, one message. A Parquet file whose footer length is set to its size − 8
 * (one of the shapes a truncated or overwritten file takes) gives the same Corrupt FloeError naming the
 * file in `scan` (data file and delete file) and in the rewrite path (`compact`), on the codec in use.
 */
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyFixture, floe } from '../../shells/cli/support.js';

const copies: { cleanup: () => void }[] = [];
afterAll(() => copies.forEach((c) => c.cleanup()));

/** A copy of the fixture with the footer length of its first `kind` file set to size − 8. */
function corrupted(kind: 'data' | 'delete'): { dir: string; file: string } {
  const t = copyFixture('impala/iceberg_v2_positional_not_all_data_files_have_delete_files');
  copies.push(t);
  const name = readdirSync(path.join(t.dir, 'data'))
    .filter((n) => n.endsWith('.parquet') && n.includes('-delete-') === (kind === 'delete'))
    .sort()[0]!;
  const file = path.join(t.dir, 'data', name);
  chmodSync(file, 0o644);
  const b = readFileSync(file);
  b.writeUInt32LE(b.length - 8, b.length - 8);
  writeFileSync(file, b);
  return { dir: t.dir, file: name };
}

const message = (name: string, size: number) =>
  new RegExp(
    // the real file, then (relocated copies) the path the metadata names, as every message about a data file says it
    `Parquet file \\S*/data/${name.replace(/[.]/g, '\\.')}(?: \\(metadata names [^)]*\\))? is corrupt: footer length ${size - 8} exceeds the file size ${size}`,
  );

describe('footer length = file size − 8', () => {
  it.each(['data', 'delete'] as const)(
    'scan of a table whose %s file has it: Corrupt, naming the file',
    async (kind) => {
      const t = corrupted(kind);
      const size = statSync(path.join(t.dir, 'data', t.file)).size;
      for (const args of [['--count'], []]) {
        const r = await floe('scan', t.dir, ...args, '--progress', 'none');
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/^floe: Corrupt: /);
        expect(r.stderr).toMatch(message(t.file, size));
        expect(r.stderr).not.toMatch(/Cannot read properties|undefined/);
      }
    },
  );

  it('compact (the rewrite reader) says the same', async () => {
    const t = corrupted('data');
    const size = statSync(path.join(t.dir, 'data', t.file)).size;
    const r = await floe('compact', t.dir, '-o', 'rewrite-all=true', '--json', '--progress', 'none');
    const doc = JSON.parse(r.stdout) as { failures?: { error: string }[]; error?: { message: string } };
    const said = JSON.stringify(doc);
    expect(said).toMatch(message(t.file, size));
    expect(said).not.toMatch(/Cannot read properties/);
  });
});
