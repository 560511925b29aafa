/**
 * The Iceberg delete writer (connectors/iceberg/delete-writer.ts, position-delete-writer.ts): the files an
 * `eq-to-pos` task and `--deletes-only` write, read back with floe's Parquet and Puffin readers and checked
 * against the spec — reserved field ids, required columns, rows sorted by path then position, Appendix D
 * bounds (full `file_path` bounds), and the table's data directory.
 */
import { describe, expect, it } from 'vitest';
import { readParquetFooter, readParquetTable } from '../../../connectors/formats/parquet/index.js';
import type { CommitIO } from '../../../connectors/iceberg/commit-rewrite.js';
import { dataFileStem, deleteFileWriter, distinctFileBytes } from '../../../connectors/iceberg/delete-writer.js';
import { puffinBlobBytes } from '../../../connectors/iceberg/puffin-dv-file.js';
import { decodeDeletionVector, readPuffinFooter } from '../../../connectors/iceberg/puffin.js';

/** An in-memory CommitIO that refuses to overwrite, as a table location would. */
function memoryIO(): CommitIO & { files: Map<string, Uint8Array> } {
  const files = new Map<string, Uint8Array>();
  return {
    files,
    read: async (p: string) => {
      const b = files.get(p);
      if (!b) throw new Error(`no file ${p}`);
      return b;
    },
    createNew: async (p: string, bytes: Uint8Array) => {
      if (files.has(p)) throw new Error(`${p} exists`);
      files.set(p, bytes);
    },
    overwrite: async (p: string, bytes: Uint8Array) => void files.set(p, bytes),
    remove: async (p: string) => void files.delete(p),
  };
}

const v2 = { formatVersion: 2, location: 's3://b/t/', properties: {} };
const long = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64LE(n);
  return b;
};

describe('position delete writer', () => {
  it('writes one file over several data files, sorted by path then position, with the reserved field ids', async () => {
    const io = memoryIO();
    const writer = deleteFileWriter(v2, io);
    expect(writer.deletionVectors).toBe(false);
    const [file, ...rest] = await writer.writePositionDeletes('floe-pos-pd-0-x', [
      { file: { path: 's3://b/t/data/b.parquet', specId: 1 }, positions: new Set([9, 2]) },
      { file: { path: 's3://b/t/data/a.parquet', specId: 1 }, positions: [7, 0, 3_000_000_000] },
      { file: { path: 's3://b/t/data/c.parquet', specId: 1 }, positions: [] },
    ]);
    expect(rest).toEqual([]);
    expect(file!.path).toBe('s3://b/t/data/floe-pos-pd-0-x.parquet');
    const bytes = io.files.get(file!.path)!;
    expect(file!.sizeBytes).toBe(bytes.byteLength);

    const footer = readParquetFooter(bytes, file!.path);
    expect(footer.schema.map((c) => [c.name, c.fieldId, c.repetition])).toEqual([
      ['file_path', 2147483546, 'REQUIRED'],
      ['pos', 2147483545, 'REQUIRED'],
    ]);
    const table = await readParquetTable(bytes, file!.path);
    const rows = Array.from({ length: table.numRows }, (_, i) => [
      table.getChild('file_path')!.get(i),
      table.getChild('pos')!.get(i),
    ]);
    expect(rows).toEqual([
      ['s3://b/t/data/a.parquet', 0n],
      ['s3://b/t/data/a.parquet', 7n],
      ['s3://b/t/data/a.parquet', 3_000_000_000n],
      ['s3://b/t/data/b.parquet', 2n],
      ['s3://b/t/data/b.parquet', 9n],
    ]);

    expect(file).toMatchObject({ content: 1, format: 'PARQUET', recordCount: 5, specId: 1 });
    expect(file!.partitionOf).toBe('s3://b/t/data/a.parquet');
    expect(file!.referencedDataFile).toBeUndefined(); // two data files: no single referenced file
    expect(file!.valueCounts).toEqual(
      new Map([
        [2147483546, 5n],
        [2147483545, 5n],
      ]),
    );
    expect(file!.nullValueCounts).toEqual(
      new Map([
        [2147483546, 0n],
        [2147483545, 0n],
      ]),
    );
    expect(Buffer.from(file!.lowerBounds!.get(2147483546)!).toString('utf8')).toBe('s3://b/t/data/a.parquet');
    expect(Buffer.from(file!.upperBounds!.get(2147483546)!).toString('utf8')).toBe('s3://b/t/data/b.parquet');
    expect(Buffer.from(file!.lowerBounds!.get(2147483545)!)).toEqual(long(0n));
    expect(Buffer.from(file!.upperBounds!.get(2147483545)!)).toEqual(long(3_000_000_000n));
  });

  it('names the one data file it covers, keeps full path bounds, and honours write.data.path', async () => {
    const io = memoryIO();
    // longer than the 16-character truncation of data-file metrics: position deletes keep it whole
    const path = 's3://b/t/data/part=7/00000-0-0123456789abcdef.parquet';
    const md = { formatVersion: 2, location: 's3://b/t', properties: { 'write.data.path': 's3://other/d/' } };
    const [file] = await deleteFileWriter(md, io).writePositionDeletes(`run-t1-pos-${dataFileStem(path)}`, [
      { file: { path, specId: 4 }, positions: [5] },
    ]);
    expect(file!.path).toBe('s3://other/d/run-t1-pos-00000-0-0123456789abcdef.parquet');
    expect(file!.referencedDataFile).toBe(path);
    expect(file!.specId).toBe(4);
    expect(Buffer.from(file!.lowerBounds!.get(2147483546)!).toString('utf8')).toBe(path);
    expect(Buffer.from(file!.upperBounds!.get(2147483546)!).toString('utf8')).toBe(path);
    expect(Buffer.from(file!.lowerBounds!.get(2147483545)!)).toEqual(long(5n));
    expect([...io.files.keys()]).toEqual([file!.path]);
  });

  it('writes nothing when no data file has a deleted position', async () => {
    const io = memoryIO();
    const writer = deleteFileWriter(v2, io);
    expect(
      await writer.writePositionDeletes('empty', [
        { file: { path: 's3://b/t/data/a.parquet', specId: 0 }, positions: [] },
      ]),
    ).toEqual([]);
    expect(await writer.writePositionDeletes('none', [])).toEqual([]);
    expect(io.files.size).toBe(0);
  });
});

describe('deletion vector writer behind the same interface', () => {
  it('on v3 writes one Puffin file with a DV per data file, and its blob bytes add up', async () => {
    const io = memoryIO();
    const writer = deleteFileWriter({ ...v2, formatVersion: 3 }, io);
    expect(writer.deletionVectors).toBe(true);
    const dvs = await writer.writeDeletionVectors('floe-dv-pd-0-x', [
      { file: { path: 's3://b/t/data/a.parquet', specId: 0 }, positions: new Set([4, 1]) },
      { file: { path: 's3://b/t/data/b.parquet', specId: 0 }, positions: [70_000] },
    ]);
    expect(dvs.map((d) => [d.path, d.format, d.referencedDataFile, d.recordCount])).toEqual([
      ['s3://b/t/data/floe-dv-pd-0-x.puffin', 'PUFFIN', 's3://b/t/data/a.parquet', 2],
      ['s3://b/t/data/floe-dv-pd-0-x.puffin', 'PUFFIN', 's3://b/t/data/b.parquet', 1],
    ]);
    const bytes = io.files.get('s3://b/t/data/floe-dv-pd-0-x.puffin')!;
    readPuffinFooter(bytes, 'dv.puffin');
    const blob = (i: number) =>
      bytes.subarray(Number(dvs[i]!.contentOffset), Number(dvs[i]!.contentOffset! + dvs[i]!.contentSizeInBytes!));
    expect(decodeDeletionVector(blob(0), 'dv.puffin')).toEqual([1, 4]);
    expect(decodeDeletionVector(blob(1), 'dv.puffin')).toEqual([70_000]);

    // one file, counted once; the footer's blob bytes are the two DVs' bytes
    expect(distinctFileBytes(dvs)).toBe(bytes.byteLength);
    const blobBytes = await puffinBlobBytes(
      { readRange: async (p, off, len) => io.files.get(p)!.subarray(off, off + len) },
      dvs.map((d) => ({ path: d.path, sizeBytes: Number(d.sizeBytes) })),
    );
    expect(blobBytes).toEqual(
      new Map([[dvs[0]!.path, Number(dvs[0]!.contentSizeInBytes! + dvs[1]!.contentSizeInBytes!)]]),
    );
  });
});
