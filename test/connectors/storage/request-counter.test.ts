import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileIO } from '../../../connectors/storage/file-io.js';
import { MemoryObjectStore } from '../../../connectors/storage/memory-store.js';
import { LocalObjectStore } from '../../../connectors/storage/local-store.js';
import { MIN_PART_SIZE } from '../../../connectors/storage/object-store.js';
import { listRequests, uploadRequests } from '../../../connectors/storage/request-counter.js';

async function exercise(io: FileIO, root: string): Promise<void> {
  const big = new Uint8Array(MIN_PART_SIZE * 2 + 10).fill(7); // three parts at the minimum part size
  await io.createNew(`${root}/a`, new TextEncoder().encode('hello'));
  await io.overwrite(`${root}/b`, new Uint8Array(100));
  const w = io.openNew(`${root}/big`, { partSize: MIN_PART_SIZE });
  await w.write(big.subarray(0, 1000));
  await w.write(big.subarray(1000));
  await w.close();
  expect((await io.read(`${root}/a`)).byteLength).toBe(5);
  expect((await io.readRange(`${root}/b`, 10, 20)).byteLength).toBe(20);
  expect(await io.exists(`${root}/nope`)).toBe(false);
  await io.head(`${root}/a`);
  const listed: string[] = [];
  for await (const f of io.list(root, 2)) listed.push(f.location);
  expect(listed).toHaveLength(3);
  await io.remove(`${root}/a`);
  const r = io.resolve(`${root}/b`);
  await r.store.deleteMany([r.key, io.resolve(`${root}/big`).key]);
}

// Both stores must count the same S3-equivalent requests for the same calls.
const expected = {
  requests: { get: 2, put: 2 + (3 + 2), head: 2 + 1, list: 2, delete: 2 },
  bytesRead: 25,
  bytesWritten: 5 + 100 + MIN_PART_SIZE * 2 + 10,
};

describe('request counter', () => {
  it('counts S3-equivalent requests and bytes on a mounted memory store', async () => {
    const io = new FileIO();
    io.mount('s3://bucket/wh', new MemoryObjectStore());
    await exercise(io, 's3://bucket/wh/t');
    expect(io.requests.snapshot()).toEqual(expected);
  });

  it('counts the same on the local store, which stays a LocalObjectStore to code that checks', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'floe-count-'));
    try {
      const io = new FileIO();
      await exercise(io, `file://${dir}/t`);
      expect(io.requests.snapshot()).toEqual(expected);
      const r = io.resolve(`file://${dir}/t/x`);
      expect(r.store).toBeInstanceOf(LocalObjectStore);
      expect(io.resolve(`file://${dir}/t/y`).store).toBe(r.store);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('models uploads and listings as S3 is asked', () => {
    expect(uploadRequests(0)).toEqual({ put: 1, head: 0 });
    expect(uploadRequests(8 * 1024 * 1024)).toEqual({ put: 1, head: 0 });
    expect(uploadRequests(8 * 1024 * 1024 + 1, { ifNoneMatch: '*' })).toEqual({ put: 4, head: 1 });
    expect(listRequests(0)).toBe(1);
    expect(listRequests(1000)).toBe(1);
    expect(listRequests(1001)).toBe(2);
  });
});
