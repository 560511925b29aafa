/**
 * The native Parquet codec in floe's worker pool (src/core/execution/worker-pool.ts): the addon loads in several
 * worker threads at once and in the main thread, all decoding and encoding at the same time, and every thread
 * gets parquet-wasm's bytes (the oracle, computed here in the main thread). Workers that end and new ones that
 * load the addon again leave the process healthy.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codecByName } from '../../../connectors/formats/parquet/codec.js';
import { WorkerPool, type Json } from '../../../src/core/execution/worker-pool.js';
import { FLOE_PROPS, fixtureParquetFiles, oracleDecode, oracleEncode } from './fixtures/parquet-wasm-oracle.js';

const JOBS = new URL('./fixtures/native-codec-jobs.ts', import.meta.url);
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const native = codecByName('native');

// a spread of writers: every 8th fixture
const files = fixtureParquetFiles().filter((_, i) => i % 8 === 0);
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

let oracle: Record<string, { decoded: string; encoded: string }> | undefined;
async function expectedHashes(): Promise<Record<string, { decoded: string; encoded: string }>> {
  if (oracle) return oracle;
  const out: Record<string, { decoded: string; encoded: string }> = {};
  for (const file of files) {
    const ipc = await oracleDecode(new Uint8Array(readFileSync(file)), [], undefined, 65_536);
    out[file] = { decoded: sha(ipc), encoded: sha(oracleEncode(ipc, FLOE_PROPS)) };
  }
  return (oracle = out);
}

async function runJobs(pool: WorkerPool, jobs: number, rounds: number) {
  const barrier = mkdtempSync(path.join(os.tmpdir(), 'floe-native-workers-'));
  dirs.push(barrier);
  return Promise.all(
    Array.from({ length: jobs }, () =>
      pool.run('decodeEncode', { files, barrier, parties: jobs, rounds, props: FLOE_PROPS } as unknown as Json),
    ),
  ) as Promise<{ threadId: number; results: Record<string, { decoded: string; encoded: string }> }[]>;
}

describe('the native codec in worker threads', () => {
  it('loads and works in 3 workers at once and in the main thread at the same time, giving parquet-wasm bytes', async () => {
    expect(files.length).toBeGreaterThanOrEqual(10);
    const expected = await expectedHashes();
    const pool = new WorkerPool({ module: JOBS, size: 3, name: 'native codec test pool' });
    try {
      const jobs = runJobs(pool, 3, 5);
      // the main thread decodes and encodes with its own instance while the workers run
      let mainRounds = 0;
      let settled = false;
      void jobs.finally(() => (settled = true)).catch(() => undefined);
      while (!settled || mainRounds < 2) {
        for (const file of files) {
          const f = await native.open(new Uint8Array(readFileSync(file)));
          const ipc = await f.decode([], undefined, 65_536);
          f.free();
          expect({ decoded: sha(ipc), encoded: sha(native.encode(ipc, FLOE_PROPS)) }, `main thread ${file}`).toEqual(
            expected[file],
          );
        }
        mainRounds++;
        await new Promise((r) => setImmediate(r));
      }
      const results = await jobs;
      expect(new Set(results.map((r) => r.threadId)).size, 'three distinct worker threads').toBe(3);
      for (const r of results) expect(r.results).toEqual(expected);
      await pool.close();
    } finally {
      await pool.terminate();
    }
  });

  it('after those workers ended (addon instances unloaded), new workers load the addon again', async () => {
    const expected = await expectedHashes();
    const pool = new WorkerPool({ module: JOBS, size: 2, name: 'second native codec test pool' });
    try {
      const results = await runJobs(pool, 2, 1);
      for (const r of results) expect(r.results).toEqual(expected);
      await pool.close();
    } finally {
      await pool.terminate();
    }
    // and the main thread's instance still works after the workers' instances went away
    const f = await native.open(new Uint8Array(readFileSync(files[0]!)));
    expect(sha(await f.decode([], undefined, 65_536))).toBe(expected[files[0]!]!.decoded);
    f.free();
  });
});
