/** Size classes (Amoro thresholds) and the health score formula documented in src/health.ts, checked by hand. */
import { describe, expect, it } from 'vitest';
import { classifySize, DEFAULT_SIZE_POLICY, MiB, sizePolicyFromProperties, tableHealth } from '../../src/health.js';
import type { DataFile, DeleteFile } from '../../src/model/index.js';

const data = (sizeBytes: number, recordCount: number, partition: unknown[] = []): DataFile => ({
  content: 'data', path: `d${Math.random()}`, format: 'parquet', sizeBytes, recordCount, specId: 0, partition,
  dataSequenceNumber: 1n, fileSequenceNumber: 1n,
});
const posDel = (recordCount: number, partition: unknown[] = []): DeleteFile => ({
  content: 'position-deletes', path: `p${Math.random()}`, format: 'parquet', sizeBytes: 1000, recordCount, specId: 0, partition,
  dataSequenceNumber: 2n, fileSequenceNumber: 2n,
});
const eqDel = (recordCount: number): DeleteFile => ({
  content: 'equality-deletes', path: `e${Math.random()}`, format: 'parquet', sizeBytes: 1000, recordCount, specId: 0, partition: [],
  dataSequenceNumber: 2n, fileSequenceNumber: 2n, equalityFieldIds: [1],
});

describe('size classes', () => {
  it('fragment ≤ 16 MiB < undersized ≤ 96 MiB < target, by default', () => {
    expect(classifySize(16 * MiB, DEFAULT_SIZE_POLICY)).toBe('fragment');
    expect(classifySize(16 * MiB + 1, DEFAULT_SIZE_POLICY)).toBe('undersized');
    expect(classifySize(96 * MiB, DEFAULT_SIZE_POLICY)).toBe('undersized');
    expect(classifySize(96 * MiB + 1, DEFAULT_SIZE_POLICY)).toBe('target');
  });
  it('reads self-optimizing.* properties', () => {
    const p = sizePolicyFromProperties({ 'self-optimizing.target-size': String(64 * MiB), 'self-optimizing.fragment-ratio': '4' });
    expect(classifySize(16 * MiB, p)).toBe('fragment');
    expect(classifySize(16 * MiB + 1, p)).toBe('undersized');
    expect(classifySize(48 * MiB + 1, p)).toBe('target');
  });
});

describe('health score', () => {
  it('a partition of 12+ target-size files without deletes scores 100', () => {
    const h = tableHealth({ dataFiles: Array.from({ length: 12 }, () => data(120 * MiB, 1000)), deleteFiles: [] });
    expect(h.score).toBe(100);
    expect(h.data.target.files).toBe(12);
  });
  it('12 files of 48 MiB: small-file part 40 × 48/96 = 20 → 80', () => {
    const h = tableHealth({ dataFiles: Array.from({ length: 12 }, () => data(48 * MiB, 1000)), deleteFiles: [] });
    expect(h.score).toBe(80);
  });
  it('position deletes removing 10% of rows cost half the 20 points; equality deletes at 5% cost half of 40', () => {
    const files = Array.from({ length: 12 }, () => data(100 * MiB, 1000)); // 12 000 rows
    expect(tableHealth({ dataFiles: files, deleteFiles: [posDel(1200)] }).score).toBe(90);
    expect(tableHealth({ dataFiles: files, deleteFiles: [eqDel(600)] }).score).toBe(80);
  });
  it('tiny partitions are scaled towards 100 (factor = files/12 × bytes/M)', () => {
    // 6 files of 8 MiB: raw = 40 × 8/96 + 40 + 20 = 63.33; factor = 0.5 × 48/96 = 0.25 → 100 − 0.25 × 36.67 = 90.8
    const h = tableHealth({ dataFiles: Array.from({ length: 6 }, () => data(8 * MiB, 10)), deleteFiles: [] });
    expect(h.score).toBeCloseTo(90.8, 1);
  });
  it('the table score is the mean over partitions; deletes are summarised by kind', () => {
    const h = tableHealth({
      dataFiles: [...Array.from({ length: 12 }, () => data(120 * MiB, 10, ['a'])), ...Array.from({ length: 12 }, () => data(48 * MiB, 10, ['b']))],
      deleteFiles: [posDel(0, ['a'])],
    });
    expect(h.partitions).toHaveLength(2);
    expect(h.score).toBe(90);
    expect(h.deletes.position.files).toBe(1);
  });
});
