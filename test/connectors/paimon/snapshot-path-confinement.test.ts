/**
 * Issue 29.4: every file a Paimon snapshot or changelog names (baseManifestList, deltaManifestList,
 * changelogManifestList, indexManifest, statistics) is found by plain name inside the table; a path
 * (`../../../../../outside/stolen-list`, absolute), a URI of another scheme, or a separator is refused as
 * Corrupt naming the field, before anything is read through it — by inspect, scan and compact — and the table is
 * left exactly as it was (compact's lease file under `.floe/` aside). The "outside" manifest list really exists (a copy of the table's own), so a reader
 * that followed the field would succeed. Index manifest entries' file names get the same rule.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyFixture, floe } from '../../shells/cli/support.js';
import { readChangelog } from '../../../connectors/paimon/changelog-lifecycle.js';
import { FileIO } from '../../../connectors/storage/index.js';

const copies: { cleanup: () => void }[] = [];
afterAll(() => copies.forEach((c) => c.cleanup()));

function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (p !== path.join(dir, '.floe')) walk(p); // the lease file is floe's, not the table's
      } else out.push(`${path.relative(dir, p)} ${statSync(p).size} ${statSync(p).mtimeMs}`);
    }
  };
  walk(dir);
  return out.sort();
}

/** A copy of the table whose latest snapshot has `field` set to `value`; a real manifest list sits outside. */
function crafted(field: string, value: string): string {
  const t = copyFixture('paimon-cpp/pk_table_scan_and_read_mor');
  copies.push(t);
  const snap = path.join(t.dir, 'snapshot', 'snapshot-5');
  const doc = JSON.parse(readFileSync(snap, 'utf8')) as Record<string, unknown>;
  // the stolen list: the table's own base list, planted where `../../outside/stolen-list` leads (inside the
  // test's temporary directory, beside the table)
  const outside = path.resolve(t.dir, 'manifest', '../../outside');
  mkdirSync(outside, { recursive: true });
  cpSync(path.join(t.dir, 'manifest', String(doc.baseManifestList)), path.join(outside, 'stolen-list'));
  doc[field] = value;
  writeFileSync(snap, JSON.stringify(doc));
  return t.dir;
}

const FIELDS = ['baseManifestList', 'deltaManifestList', 'changelogManifestList', 'indexManifest', 'statistics'];
const VALUES = [
  '../../outside/stolen-list',
  '../../../../../outside/x',
  '/etc/passwd',
  's3://other-bucket/stolen-list',
  'file:stolen-list',
];

describe('Paimon snapshot fields must name files inside the table', () => {
  it.each(FIELDS.flatMap((f) => VALUES.map((v) => [f, v] as const)))(
    '%s = %j: inspect, scan and compact refuse it (Corrupt, naming the field); nothing is written',
    async (field, value) => {
      const dir = crafted(field, value);
      const before = tree(dir);
      for (const args of [
        ['inspect', dir],
        ['scan', dir, '--count', '--progress', 'none'],
        ['compact', dir, '--full', '--progress', 'none'],
      ]) {
        const r = await floe(...args);
        expect(r.code, `${args[0]}: ${r.stderr}`).toBe(1);
        expect(r.stderr).toContain('Corrupt');
        expect(r.stderr).toContain('snapshot-5');
        expect(r.stderr).toContain(`"${field}" ${JSON.stringify(value)}`);
        expect(r.stderr).toMatch(/not a plain file name: it would resolve outside the table/);
      }
      expect(tree(dir)).toEqual(before);
    },
    60_000,
  );

  it('a changelog file naming a path is refused the same way', async () => {
    const t = copyFixture('paimon-cpp/pk_table_scan_and_read_mor');
    copies.push(t);
    const doc = JSON.parse(readFileSync(path.join(t.dir, 'snapshot', 'snapshot-5'), 'utf8')) as Record<string, unknown>;
    mkdirSync(path.join(t.dir, 'changelog'), { recursive: true });
    writeFileSync(
      path.join(t.dir, 'changelog', 'changelog-5'),
      JSON.stringify({ ...doc, changelogManifestList: '../../outside/stolen-list' }),
    );
    const io = new FileIO();
    try {
      await expect(readChangelog(io, t.dir, 5n)).rejects.toMatchObject({
        kind: 'Corrupt',
        message: expect.stringMatching(
          /changelog-5.*"changelogManifestList" "\.\.\/\.\.\/outside\/stolen-list" is a path/,
        ),
      });
    } finally {
      io.destroy();
    }
  });

  it('plain names still read (the untouched table scans)', async () => {
    const t = copyFixture('paimon-cpp/pk_table_scan_and_read_mor');
    copies.push(t);
    const r = await floe('scan', t.dir, '--count', '--progress', 'none');
    expect(r.code, r.stderr).toBe(0);
  });
});
