/**
 * Issue 15.5: floe writes Avro manifests only, and Java Paimon reads a table's manifests in its configured
 * `manifest.format`. A table with `manifest.format=orc` (the Java-written append_09 fixture) is refused with
 * that exact reason before anything is written — compaction, a dry run, an option override, partition expiry.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isFloeError } from '../../../util/errors.js';
import { compactPaimon } from '../../../src/orchestration/compact-paimon.js';
import { expirePaimonPartitions } from '../../../connectors/paimon/expire-partitions.js';
import { openPaimonTable } from '../../../connectors/paimon/table.js';
import { FileIO } from '../../../connectors/storage/file-io.js';
import { cleanup, copyFixture, fixtures, hasFixtures } from './helpers.js';

afterAll(cleanup);

function snapshotOf(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = path.join(d, n);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else out.push(`${path.relative(dir, p)} ${st.size} ${st.mtimeMs}`);
    }
  };
  walk(dir);
  return out.sort();
}

const ORC_REASON =
  /uses manifest\.format=orc; floe cannot write ORC manifests \(ORC writing is not built\), so nothing is written to this table/;

describe.runIf(hasFixtures)('manifest.format=orc is refused before anything is written', () => {
  for (const [name, o] of [
    ['compact', {}],
    ['compact --full', { full: true }],
    ['compact --dry-run', { dryRun: true }],
  ] as const) {
    it(name, async () => {
      const t = copyFixture('append_09');
      const before = snapshotOf(t);
      await expect(compactPaimon(t, { ...o, options: { 'compaction.min.file-num': '2' } })).rejects.toSatisfy(
        (e: unknown) =>
          isFloeError(e, 'Unsupported') && ORC_REASON.test((e as Error).message) && (e as Error).message.includes(t),
      );
      expect(snapshotOf(t)).toEqual(before);
    });
  }

  it('an -o manifest.format=avro override cannot make floe write Avro manifests into an ORC table', async () => {
    const t = copyFixture('append_09');
    const before = snapshotOf(t);
    await expect(compactPaimon(t, { full: true, options: { 'manifest.format': 'avro' } })).rejects.toSatisfy(
      (e: unknown) =>
        isFloeError(e, 'InvalidArgument') &&
        /manifest\.format=orc, which an override cannot change/.test((e as Error).message),
    );
    expect(snapshotOf(t)).toEqual(before);
  });

  it('expire-partitions commits nothing to an ORC-manifest table', async () => {
    const t = copyFixture('append_09');
    const before = snapshotOf(t);
    const table = await openPaimonTable(t);
    expect(table.schema.partitionKeys.length).toBeGreaterThan(0);
    const fileIO = new FileIO();
    try {
      const opts = {
        ...table.schema.options,
        'partition.expiration-time': '1 d',
        'partition.timestamp-pattern': '2020-01-01',
      };
      await expect(
        expirePaimonPartitions({ ...table, schema: { ...table.schema, options: opts } }, fileIO),
      ).rejects.toThrow(ORC_REASON);
    } finally {
      fileIO.destroy();
    }
    expect(snapshotOf(t)).toEqual(before);
  });
});

it('fixtures are present (a run without them must fail, not skip)', () => {
  expect(hasFixtures, `missing ${fixtures}`).toBe(true);
});
