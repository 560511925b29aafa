/**
 * Knowing the store (connectors/storage/conditional-writes.ts) against the real S3 test server, and against
 * the same server behind a proxy that strips If-None-Match / If-Match and signs the request again — a store
 * that ignores conditional writes. On that store `floe compact` must refuse to commit a filesystem table
 * (Iceberg and Paimon) and to take the table lease, naming the store and what to use instead, and leave
 * the bucket exactly as it was; FLOE_S3_UNSAFE_COMMITS=1 commits anyway.
 */
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFloeError } from '../../util/errors.js';
import { FileIO } from '../../connectors/storage/file-io.js';
import { S3ObjectStore } from '../../connectors/storage/s3-store.js';
import { conditionalWriteSupport, forgetConditionalWriteSupport } from '../../connectors/storage/conditional-writes.js';
import { appendRows, createIcebergTable } from '../../connectors/iceberg/write-table.js';
import { compactPaimon } from '../../src/orchestration/compact-paimon.js';
import { acquireS3, type S3TestServer } from '../support/s3-server.js';
import { startFaultProxy, type FaultProxy } from '../support/s3-fault-proxy.js';
import { fixtures, spawnFloe } from '../../test/shells/cli/support.js';
import { uploadDir } from '../iceberg-compaction/helpers.js';

const s3 = await acquireS3();
const server = (s3.available ? s3.server : undefined) as S3TestServer;
const run = `cond-${randomBytes(4).toString('hex')}`;

function fileIOAt(endpoint: string, extra: { unsafeCommits?: boolean } = {}): FileIO {
  return new FileIO({
    s3: {
      endpoint,
      region: server.region,
      forcePathStyle: true,
      credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
      ...extra,
    },
  });
}

/** Every object under `prefix` with its ETag: what "wrote nothing" is checked against. */
async function snapshotOf(io: FileIO, prefix: string): Promise<string[]> {
  const root = io.resolve(prefix);
  const out: string[] = [];
  for await (const e of root.store.list(`${root.key}/`)) out.push(`${e.key} ${(await root.store.head(e.key)).etag}`);
  return out.sort();
}

function cliEnv(endpoint: string): Record<string, string> {
  return {
    FLOE_S3_ENDPOINT: endpoint,
    AWS_ACCESS_KEY_ID: server.accessKeyId,
    AWS_SECRET_ACCESS_KEY: server.secretAccessKey,
    AWS_REGION: server.region,
  };
}

const FIELDS = [
  { id: 1, name: 'id', required: true, type: { kind: 'primitive', name: 'long' } },
  { id: 2, name: 'v', required: false, type: { kind: 'primitive', name: 'string' } },
] as const;

describe.skipIf(!s3.available)(`conditional writes (${s3.available ? server.kind : 'skipped'})`, () => {
  let proxy: FaultProxy;
  const direct = () => fileIOAt(server.endpoint);
  const ios: FileIO[] = [];
  const io = (endpoint: string, extra?: { unsafeCommits?: boolean }) => {
    const f = fileIOAt(endpoint, extra);
    ios.push(f);
    return f;
  };
  const icebergTable = `s3://${server?.bucket}/${run}/iceberg/orders`;

  beforeAll(async () => {
    proxy = await startFaultProxy({
      upstream: server.endpoint,
      stripHeaders: ['if-none-match', 'if-match'],
      secretAccessKey: server.secretAccessKey,
    });
    // the table is written straight to the server (which honours conditional writes): 6 small files
    const w = io(server.endpoint);
    await createIcebergTable(w, icebergTable, { fields: [...FIELDS] });
    for (let i = 0; i < 6; i++) await appendRows(w, icebergTable, [{ id: BigInt(i), v: `row ${i}` }]);
  });
  afterAll(async () => {
    for (const f of ios) f.destroy();
    await proxy?.close();
    await s3.release();
  });

  it('the probe: the server honours If-None-Match and If-Match; behind the stripping proxy neither', async () => {
    forgetConditionalWriteSupport();
    const dir = `${run}/probe`;
    const real = io(server.endpoint).resolve(`s3://${server.bucket}/${dir}`).store as S3ObjectStore;
    expect(await conditionalWriteSupport(real, dir)).toMatchObject({ create: true, replace: true, source: 'probe' });
    const ignoring = io(proxy.endpoint).resolve(`s3://${server.bucket}/${dir}`).store as S3ObjectStore;
    const seen = await conditionalWriteSupport(ignoring, dir);
    expect(seen).toMatchObject({ create: false, replace: false, source: 'probe' });
    expect(seen.detail).toMatch(/second create of the same key .* succeeded/);
    // the headers really were sent, and stripped on the way
    expect(proxy.events.filter((e) => e.stripped).length).toBeGreaterThanOrEqual(3);
    // remembered per endpoint and bucket: asking again sends nothing
    const before = proxy.events.length;
    await conditionalWriteSupport(ignoring, dir);
    expect(proxy.events.length).toBe(before);
    // the probe removed what it wrote
    expect(await snapshotOf(direct(), `s3://${server.bucket}/${dir}`)).toEqual([]);
  });

  it('floe compact (a process) on the ignoring store refuses the lease, then the Iceberg commit, and writes nothing', async () => {
    const before = await snapshotOf(direct(), icebergTable);
    expect(before.some((k) => k.includes('v7.metadata.json'))).toBe(true);

    const leased = await spawnFloe(['compact', icebergTable, '--strategy', 'binpack'], {
      env: cliEnv(proxy.endpoint),
    });
    expect(leased.code, leased.stderr).toBe(1);
    expect(leased.stderr).toContain(`refusing to take the lease of table ${icebergTable}`);
    expect(leased.stderr).toContain(`endpoint ${proxy.endpoint} (bucket ${server.bucket})`);
    expect(leased.stderr).toMatch(/--no-lease/);
    expect(await snapshotOf(direct(), icebergTable)).toEqual(before);

    const r = await spawnFloe(['compact', icebergTable, '--strategy', 'binpack', '--no-lease', '--json'], {
      env: cliEnv(proxy.endpoint),
    });
    expect(r.code, r.stderr).toBe(1);
    const text = `${r.stdout}\n${r.stderr}`;
    expect(text).toContain(`refusing to commit Iceberg table ${icebergTable}`);
    expect(text).toContain(`endpoint ${proxy.endpoint} (bucket ${server.bucket})`);
    expect(text).toMatch(/--catalog sql:/);
    expect(text).toContain('FLOE_S3_UNSAFE_COMMITS=1');
    expect(await snapshotOf(direct(), icebergTable)).toEqual(before);
    // nothing but the (removed) probe objects was ever PUT through the proxy
    const puts = proxy.events.filter((e) => e.method === 'PUT' || e.method === 'POST');
    expect(puts.length).toBeGreaterThan(0);
    expect(puts.every((e) => e.key.includes('.conditional-write-probe.floe-tmp-'))).toBe(true);
  });

  it('FLOE_S3_UNSAFE_COMMITS=1 commits on the ignoring store (the documented unsafe override)', async () => {
    const r = await spawnFloe(['compact', icebergTable, '--strategy', 'binpack', '--no-lease', '--json'], {
      env: { ...cliEnv(proxy.endpoint), FLOE_S3_UNSAFE_COMMITS: '1' },
    });
    expect(r.code, r.stderr).toBe(0);
    const after = await snapshotOf(direct(), icebergTable);
    expect(after.some((k) => k.includes('v8.metadata.json'))).toBe(true);
  });

  it('a Paimon compaction on the ignoring store is refused before any file is written', async () => {
    const table = `s3://${server.bucket}/${run}/paimon/pk`;
    await uploadDir(io(server.endpoint), path.join(fixtures, 'paimon-cpp/pk_table_scan_and_read_mor'), table);
    const before = await snapshotOf(direct(), table);
    const err = await compactPaimon(table, { full: true, fileIO: io(proxy.endpoint) }).catch((e: unknown) => e);
    expect(isFloeError(err, 'Unsupported'), String(err)).toBe(true);
    expect((err as Error).message).toContain(`refusing to commit Paimon table ${table}`);
    expect((err as Error).message).toMatch(/JDBC catalog with lock\.enabled=true/);
    expect(await snapshotOf(direct(), table)).toEqual(before);
    // the same table, straight to the server, compacts
    const report = await compactPaimon(table, { full: true, fileIO: io(server.endpoint) });
    expect(report.snapshotId).toBeDefined();
  });
});
