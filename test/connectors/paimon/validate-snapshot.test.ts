/**
 * Issue 9.4 for Paimon: a snapshot floe would read and commit snapshot N+1 on top of is checked first —
 * id matches the file name, schemaId resolves, counts are non-negative, commitIdentifier is present.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FloeError } from '../../../util/errors.js';
import { parseJsonLossless, stringifyJsonLossless } from '../../../util/json.js';
import { parseSnapshot, readSnapshot } from '../../../connectors/paimon/metadata.js';
import { openPaimonTable } from '../../../connectors/paimon/table.js';
import { FileIO } from '../../../connectors/storage/file-io.js';
import { readLiveEntries, readManifestList } from '../../../connectors/paimon/manifest.js';
import { editAvroRecords } from '../../../integration/bad-input/mutate.js';
import { copyFixture, fixtures } from '../iceberg/helpers.js';

const localIO = new FileIO();

const TABLE = 'paimon-cpp/pk_table_scan_and_read_mor';
const SNAP = path.join(fixtures, TABLE, 'snapshot/snapshot-5');
type Doc = Record<string, unknown>;

function refusal(edit: (d: Doc) => void): FloeError | undefined {
  const d = parseJsonLossless(readFileSync(SNAP, 'utf8')) as Doc;
  edit(d);
  try {
    parseSnapshot(Buffer.from(stringifyJsonLossless(d, 2)), SNAP);
    return undefined;
  } catch (e) {
    return e as FloeError;
  }
}
function expectRefused(edit: (d: Doc) => void, invariant: RegExp): void {
  const e = refusal(edit);
  expect(e, 'the broken snapshot was accepted').toBeInstanceOf(FloeError);
  expect(e!.kind).toBe('Corrupt');
  expect(e!.message).toContain(SNAP);
  expect(e!.message).toMatch(invariant);
}

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

describe('Paimon snapshot invariants', () => {
  it('the untouched snapshot is accepted (control)', () => {
    expect(refusal(() => {})).toBeUndefined();
  });
  it('non-negative counts (a negative deltaRecordCount is legal: compaction may shrink a table)', () => {
    expectRefused((d) => void (d.totalRecordCount = -5), /"totalRecordCount" is -5/);
    expectRefused((d) => void (d.changelogRecordCount = -1), /"changelogRecordCount" is -1/);
    expectRefused((d) => void (d.baseManifestListSize = -7), /"baseManifestListSize" is -7/);
    expect(refusal((d) => void (d.deltaRecordCount = -3))).toBeUndefined();
  });
  it('commitIdentifier is present and an integer', () => {
    expectRefused((d) => void delete d.commitIdentifier, /no "commitIdentifier"/);
    expectRefused((d) => void (d.commitIdentifier = 'abc'), /commitIdentifier/);
  });
  it('id ≥ 1, a known commitKind, manifest lists named', () => {
    expectRefused((d) => void (d.id = -1), /"id"/);
    expectRefused((d) => void (d.commitKind = 'MERGE'), /unknown "commitKind" "MERGE"/);
    expectRefused((d) => void (d.baseManifestList = ''), /baseManifestList/);
  });
  it('the id matches the file name', async () => {
    const { dir, cleanup } = copyFixture(TABLE);
    cleanups.push(cleanup);
    const file = path.join(dir, 'snapshot/snapshot-5');
    const d = parseJsonLossless(readFileSync(file, 'utf8')) as Doc;
    d.id = 105;
    writeFileSync(file, stringifyJsonLossless(d, 2));
    await expect(readSnapshot(localIO, dir, 5n)).rejects.toThrow(/snapshot-5: it says id 105/);
  });
  it('schemaId resolves to a schema file', async () => {
    const { dir, cleanup } = copyFixture(TABLE);
    cleanups.push(cleanup);
    const file = path.join(dir, 'snapshot/snapshot-5');
    const d = parseJsonLossless(readFileSync(file, 'utf8')) as Doc;
    d.schemaId = 99;
    writeFileSync(file, stringifyJsonLossless(d, 2));
    const e = await openPaimonTable(dir).catch((x: unknown) => x as FloeError);
    expect(e).toBeInstanceOf(FloeError);
    expect((e as FloeError).message).toContain(file);
    expect((e as FloeError).message).toMatch(/"schemaId" 99 names a schema the table does not have/);
  });
});

describe('Paimon manifest counts', () => {
  it('negative row counts, sizes and levels, and counts floe could only round, are refused naming the manifest', async () => {
    for (const [field, value, message] of [
      ['_ROW_COUNT', -1n, /_ROW_COUNT is negative/],
      ['_FILE_SIZE', -1n, /_FILE_SIZE is negative/],
      ['_LEVEL', -1, /_LEVEL is negative/],
      ['_ROW_COUNT', 1n << 62n, /_ROW_COUNT 4611686018427387904 is beyond 2\^53 − 1/],
    ] as const) {
      const { dir, cleanup } = copyFixture(TABLE);
      cleanups.push(cleanup);
      const s = parseJsonLossless(readFileSync(path.join(dir, 'snapshot/snapshot-5'), 'utf8')) as Doc;
      const list = String(s.deltaManifestList);
      const metas = await readManifestList(localIO, dir, list);
      const manifest = path.join(dir, 'manifest', metas[0]!.fileName);
      await editAvroRecords((rs) => rs.forEach((r) => void ((r._FILE as Doc)[field] = value)))(manifest);
      const e = await readLiveEntries(localIO, dir, [list]).catch((x: unknown) => x as FloeError);
      expect(e).toBeInstanceOf(FloeError);
      expect((e as FloeError).message).toContain(metas[0]!.fileName);
      expect((e as FloeError).message).toMatch(message);
    }
  });
});
