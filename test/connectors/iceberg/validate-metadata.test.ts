/**
 * Issue 9.4: metadata invariants. Each broken copy of a real table's metadata is refused with a Corrupt
 * FloeError naming the metadata file and the invariant — before floe plans or commits anything on top.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FloeError } from '../../../util/errors.js';
import { parseJsonLossless, stringifyJsonLossless } from '../../../util/json.js';
import { parseMetadataBytes } from '../../../connectors/iceberg/metadata.js';
import { nextMetadata } from '../../../connectors/iceberg/commit-metadata.js';
import { readManifest, readManifestList, allFieldsById } from '../../../connectors/iceberg/manifests.js';
import { openIcebergTable } from '../../../connectors/iceberg/table.js';
import { editAvroRecords } from '../../../integration/bad-input/mutate.js';
import { runFloeInProcess } from '../../../integration/bad-input/run-floe.js';
import { copyFixture, fixtures } from './helpers.js';

type Doc = Record<string, unknown>;
const V2 = path.join(fixtures, 'icebird/spark_bunnies/metadata/v5.metadata.json');
const V3 = path.join(fixtures, 'impala/iceberg_v3_deletion_vectors/metadata/v3.metadata.json');

function load(file: string): Doc {
  return parseJsonLossless(readFileSync(file, 'utf8')) as Doc;
}
const snaps = (d: Doc) => d.snapshots as Doc[];
const current = (d: Doc) => snaps(d).find((s) => s['snapshot-id'] === d['current-snapshot-id'])!;

/** Parses an edited copy; returns the error (or undefined when it was accepted). */
function refusal(file: string, edit: (d: Doc) => void): FloeError | undefined {
  const d = load(file);
  edit(d);
  try {
    parseMetadataBytes(Buffer.from(stringifyJsonLossless(d, 2)), file);
    return undefined;
  } catch (e) {
    return e as FloeError;
  }
}

function expectRefused(file: string, edit: (d: Doc) => void, invariant: RegExp): void {
  const e = refusal(file, edit);
  expect(e, 'the broken metadata was accepted').toBeInstanceOf(FloeError);
  expect(e!.kind).toBe('Corrupt');
  expect(e!.message).toContain(file);
  expect(e!.message).toMatch(invariant);
}

describe('metadata invariants (each broken copy of a real table is refused)', () => {
  it('the untouched fixtures are accepted (control)', () => {
    expect(refusal(V2, () => {})).toBeUndefined();
    expect(refusal(V3, () => {})).toBeUndefined();
    // every metadata file of every fixture table passes, so the checks do not refuse real writers' output
    const all: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.metadata\.json$/.test(e.name)) all.push(p);
      }
    };
    walk(fixtures);
    expect(all.length).toBeGreaterThan(30);
    for (const f of all) expect(() => parseMetadataBytes(readFileSync(f), f), f).not.toThrow();
  });

  it('last-sequence-number must not be negative', () => {
    expectRefused(V2, (d) => void (d['last-sequence-number'] = -7), /last-sequence-number is -7, must be ≥ 0/);
  });
  it('no snapshot has a sequence number beyond last-sequence-number', () => {
    expectRefused(
      V2,
      (d) => void (d['last-sequence-number'] = 0),
      /sequence number \d+, beyond last-sequence-number 0/,
    );
  });
  it('snapshot sequence numbers are non-negative integers', () => {
    expectRefused(V2, (d) => void (current(d)['sequence-number'] = -1), /sequence-number of snapshot \d+ is -1/);
    expectRefused(
      V2,
      (d) => void (current(d)['sequence-number'] = 1.5),
      /sequence-number.*(must be an integer|expected an integer)/,
    );
  });
  it('a parent is not newer than its child', () => {
    expectRefused(
      V2,
      (d) => {
        const c = current(d);
        const p = snaps(d).find((s) => s['snapshot-id'] === c['parent-snapshot-id'])!;
        p['sequence-number'] = c['sequence-number'];
        c['sequence-number'] = 0;
      },
      /older than its parent/,
    );
  });
  it('snapshot ids are unique', () => {
    expectRefused(V2, (d) => void snaps(d).push({ ...current(d) }), /snapshot id \d+ appears more than once/);
  });
  it('64-bit values fit in int64', () => {
    const d = readFileSync(V2, 'utf8').replace(
      /"last-sequence-number"\s*:\s*\d+/,
      '"last-sequence-number" : 99999999999999999999',
    );
    expect(() => parseMetadataBytes(Buffer.from(d), V2)).toThrow(/does not fit in a 64-bit integer/);
  });
  it('current-snapshot-id and every ref point at existing snapshots; main agrees with current-snapshot-id', () => {
    expectRefused(
      V2,
      (d) => {
        d['current-snapshot-id'] = 42;
        d.refs = { main: { type: 'branch', 'snapshot-id': 42 } };
      },
      /current-snapshot-id 42 is not in the snapshot list|current snapshot 42 is not in the snapshot list/,
    );
    expectRefused(
      V2,
      (d) =>
        void (d.refs = {
          main: { type: 'branch', 'snapshot-id': d['current-snapshot-id'] },
          t: { type: 'tag', 'snapshot-id': 777 },
        }),
      /ref t points at snapshot 777/,
    );
    expectRefused(
      V2,
      (d) => {
        const other = snaps(d).find((s) => s['snapshot-id'] !== d['current-snapshot-id'])!;
        d.refs = { main: { type: 'branch', 'snapshot-id': other['snapshot-id'] } };
      },
      /ref main .* and current-snapshot-id .* disagree/,
    );
    expectRefused(
      V2,
      (d) => void (d.refs = { x: { type: 'twig', 'snapshot-id': d['current-snapshot-id'] } }),
      /ref x has type "twig"/,
    );
  });
  it('current-schema-id, default-spec-id and default-sort-order-id resolve', () => {
    expectRefused(V2, (d) => void (d['current-schema-id'] = 99), /current-schema-id 99 is not among the schemas/);
    expectRefused(V2, (d) => void (d['default-spec-id'] = 99), /default-spec-id 99 is not among the partition specs/);
    expectRefused(
      V2,
      (d) => void (d['default-sort-order-id'] = 99),
      /default-sort-order-id 99 is not among the sort orders/,
    );
  });
  it('last-column-id is at least every field id', () => {
    expectRefused(V2, (d) => void (d['last-column-id'] = 1), /field id \d+, beyond last-column-id 1/);
    expectRefused(V2, (d) => void delete d['last-column-id'], /no last-column-id/);
  });
  it('format-version is an integer 1..3', () => {
    expectRefused(V2, (d) => void (d['format-version'] = 2.5), /format-version must be an integer/);
    const e = refusal(V2, (d) => void (d['format-version'] = 4));
    expect(e?.kind).toBe('Unsupported');
    expect(e?.message).toContain(V2);
  });
  it("v3: next-row-id is present, non-negative and past every snapshot's row range", () => {
    expectRefused(V3, (d) => void (d['next-row-id'] = -1), /next-row-id is -1/);
    expectRefused(V3, (d) => void delete d['next-row-id'], /no next-row-id/);
    expectRefused(V3, (d) => void (d['next-row-id'] = 0), /beyond next-row-id 0/);
  });
  it('record counts and file sizes are non-negative and fit in int64', () => {
    expectRefused(
      V2,
      (d) => void ((current(d).summary as Doc)['total-records'] = '-3'),
      /"total-records" of snapshot \d+ is negative/,
    );
    expectRefused(
      V2,
      (d) => void ((current(d).summary as Doc)['total-records'] = '18446744073709551616'),
      /does not fit in a 64-bit integer/,
    );
    expectRefused(
      V2,
      (d) => {
        d.statistics = [
          {
            'snapshot-id': d['current-snapshot-id'],
            'statistics-path': 'x.stats',
            'file-size-in-bytes': -5,
            'blob-metadata': [],
          },
        ];
      },
      /file-size-in-bytes for snapshot \d+ is -5/,
    );
  });
  it('lists are lists', () => {
    expectRefused(V2, (d) => void (d['partition-specs'] = 7), /"partition-specs" must be a list/);
  });
});

describe('committing on top of corrupt metadata (issue 9.4)', () => {
  let cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups) c();
    cleanups = [];
  });

  it('"last-sequence-number": -7 → floe compact refuses, names the file and the invariant, writes nothing', async () => {
    const { dir, cleanup } = copyFixture('icebird/spark_bunnies');
    cleanups.push(cleanup);
    const file = path.join(dir, 'metadata/v5.metadata.json');
    const d = load(file);
    d['last-sequence-number'] = -7;
    writeFileSync(file, stringifyJsonLossless(d, 2));
    const before = readdirSync(path.join(dir, 'metadata')).sort();
    const run = await runFloeInProcess(['compact', dir]);
    expect(run.crash).toBeUndefined();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(file);
    expect(run.stderr).toContain('last-sequence-number is -7');
    expect(readdirSync(path.join(dir, 'metadata')).sort()).toEqual(before);
    expect(readdirSync(path.join(dir, 'data')).length).toBe(3);
  });

  it('nextMetadata refuses a document that would break an invariant (sequence number overflow)', () => {
    const d = load(V2);
    const max = (1n << 63n) - 1n;
    d['last-sequence-number'] = max;
    expect(() =>
      nextMetadata(d, V2, {
        snapshotId: 1n,
        parentSnapshotId: current(d)['snapshot-id'] as bigint,
        sequenceNumber: max + 1n,
        timestampMs: 1,
        manifestList: 'm.avro',
        summary: { operation: 'replace' },
        schemaId: 0,
      }),
    ).toThrow(/refusing to commit on top of .*v5\.metadata\.json.*does not fit in a 64-bit integer/);
  });
});

describe('manifest counts (issue 9.4: counts that fit, never silently rounded)', () => {
  let cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups) c();
    cleanups = [];
  });
  async function brokenManifest(edit: (df: Doc) => void): Promise<Error> {
    const { dir, cleanup } = copyFixture('icebird/spark_bunnies');
    cleanups.push(cleanup);
    const table = await openIcebergTable(dir);
    const snap = table.metadata.snapshots.find((s) => s.snapshotId === table.metadata.currentSnapshotId)!;
    const [mf] = await readManifestList(table.io, table.metadata, snap);
    const local = path.join(dir, 'metadata', path.basename(mf!.path));
    await editAvroRecords((rs) => rs.forEach((r) => edit(r.data_file as Doc)))(local);
    try {
      await readManifest(table.io, mf!, {
        md: table.metadata,
        fieldsById: allFieldsById(table.metadata),
        snapshotId: snap.snapshotId,
      });
    } catch (e) {
      return e as Error;
    }
    throw new Error('the broken manifest was accepted');
  }
  it('a 2^62 record count is refused rather than rounded', async () => {
    const e = await brokenManifest((df) => void (df.record_count = 1n << 62n));
    expect(e).toBeInstanceOf(FloeError);
    expect(e.message).toMatch(/-m\d\.avro/);
    expect(e.message).toContain('record_count');
    expect(e.message).toContain('4611686018427387904');
  });
  it('a negative record count or file size is refused', async () => {
    expect((await brokenManifest((df) => void (df.record_count = -1n))).message).toMatch(/record_count .* is negative/);
    expect((await brokenManifest((df) => void (df.file_size_in_bytes = -1n))).message).toMatch(
      /file_size_in_bytes .* is negative/,
    );
  });
});
