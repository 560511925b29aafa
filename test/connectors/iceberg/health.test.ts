/**
 * Size classes (Amoro thresholds) and the health score (src/core/health.ts): 100 × ideal / actual scan cost, with
 * every file open charged 4 MiB. Expected numbers are worked out by hand in the comments.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  classifySize,
  DEFAULT_SIZE_POLICY,
  explainHealth,
  MiB,
  sizePolicyFromProperties,
  tableHealth,
} from '../../../src/core/health.js';
import type { DataFile, DeleteFile, PartitionSpec } from '../../../model/index.js';
import { seedDemoTable } from '../../../src/demo/seed.js';
import { buildInspectReport, openTableForCli } from '../../../src/shells/cli/commands/inspect.js';
import { compactIceberg } from '../../../src/orchestration/compact-iceberg.js';
import { openIcebergForWrite } from '../../../connectors/iceberg/open-for-write.js';
import { fixtures } from './helpers.js';
import { buildPaimonInspect, paimonFileIO } from '../../../src/shells/cli/paimon-view.js';
import { compactPaimon } from '../../../src/orchestration/compact-paimon.js';
import { cleanup as cleanupPaimon, copyFixture as copyPaimonFixture } from '../paimon-compact/helpers.js';

let n = 0;
const data = (sizeBytes: number, recordCount: number, partition: unknown[] = [], seq = 1n, specId = 0): DataFile => ({
  content: 'data',
  path: `d${n++}`,
  format: 'parquet',
  sizeBytes,
  recordCount,
  specId,
  partition,
  dataSequenceNumber: seq,
  fileSequenceNumber: seq,
});
const posDel = (recordCount: number, partition: unknown[] = [], seq = 2n): DeleteFile => ({
  content: 'position-deletes',
  path: `p${n++}`,
  format: 'parquet',
  sizeBytes: 1000,
  recordCount,
  specId: 0,
  partition,
  dataSequenceNumber: seq,
  fileSequenceNumber: seq,
});
const eqDel = (recordCount: number, partition: unknown[] = [], seq = 2n, specId = 0): DeleteFile => ({
  content: 'equality-deletes',
  path: `e${n++}`,
  format: 'parquet',
  sizeBytes: 1000,
  recordCount,
  specId,
  partition,
  dataSequenceNumber: seq,
  fileSequenceNumber: seq,
  equalityFieldIds: [1],
});
const byRegion: PartitionSpec = {
  specId: 0,
  fields: [{ sourceId: 2, fieldId: 1000, name: 'region', transform: 'identity' }],
};
const unpartitioned: PartitionSpec = { specId: 1, fields: [] };
const round1 = (x: number) => Math.round(x * 10) / 10;

describe('size classes', () => {
  it('fragment ≤ 16 MiB < undersized ≤ 96 MiB < target, by default', () => {
    expect(classifySize(16 * MiB, DEFAULT_SIZE_POLICY)).toBe('fragment');
    expect(classifySize(16 * MiB + 1, DEFAULT_SIZE_POLICY)).toBe('undersized');
    expect(classifySize(96 * MiB, DEFAULT_SIZE_POLICY)).toBe('undersized');
    expect(classifySize(96 * MiB + 1, DEFAULT_SIZE_POLICY)).toBe('target');
  });
  it('reads self-optimizing.* properties', () => {
    const p = sizePolicyFromProperties({
      'self-optimizing.target-size': String(64 * MiB),
      'self-optimizing.fragment-ratio': '4',
    });
    expect(classifySize(16 * MiB, p)).toBe('fragment');
    expect(classifySize(16 * MiB + 1, p)).toBe('undersized');
    expect(classifySize(48 * MiB + 1, p)).toBe('target');
  });
});

describe('health score = 100 × ideal / actual scan cost', () => {
  it('12 files of 120 MiB without deletes: already ideal → 100', () => {
    const h = tableHealth({ dataFiles: Array.from({ length: 12 }, () => data(120 * MiB, 1000)), deleteFiles: [] });
    expect(h.score).toBe(100);
    expect(h.data.target.files).toBe(12);
  });
  it('12 files of 48 MiB: actual 576 + 12×4 MiB, ideal 576 + ⌈576/128⌉=5 × 4 MiB → 95.5', () => {
    const h = tableHealth({ dataFiles: Array.from({ length: 12 }, () => data(48 * MiB, 1000)), deleteFiles: [] });
    expect(h.score).toBe(round1((100 * (576 + 20)) / (576 + 48)));
    expect(h.cost.idealFiles).toBe(5);
  });
  it('1 MiB files: each open costs 4 × the data → about 20', () => {
    const h = tableHealth({ dataFiles: Array.from({ length: 64 }, () => data(MiB, 10)), deleteFiles: [] });
    expect(h.score).toBe(round1((100 * (64 + 4)) / (64 + 64 * 4)));
  });
  it('a position delete is read once per data file it applies to, and its rows are not live', () => {
    // 12 × 100 MiB, 12 000 rows; one 1000-byte position delete file (seq 2 ≥ 1: applies to all 12) of 1200 rows.
    // actual = 1200 MiB + 48 MiB + 12 × (4 MiB + 1000 B); live = 1080 MiB in ⌈1080/128⌉ = 9 files → ideal 1080 + 36 MiB
    const files = Array.from({ length: 12 }, () => data(100 * MiB, 1000));
    const h = tableHealth({ dataFiles: files, deleteFiles: [posDel(1200)] });
    expect(h.cost.deleteReads).toBe(12);
    expect(h.score).toBe(round1((100 * (1116 * MiB)) / (1296 * MiB + 12 * 1000)));
  });
  it('the demo shape — 120 fragments of 2.8 KiB in 3 partitions, 30 equality deletes — scores about 0; compacted, 100', () => {
    const frag = Math.round(2.8 * 1024);
    const dataFiles: DataFile[] = [];
    const deleteFiles: DeleteFile[] = [];
    for (const r of ['eu', 'us', 'apac']) {
      for (let i = 0; i < 40; i++) dataFiles.push(data(frag, 100, [r], BigInt(i + 1)));
      for (let i = 0; i < 10; i++) deleteFiles.push(eqDel(13, [r], BigInt(4 * i + 4)));
    }
    const h = tableHealth({ specs: [byRegion], dataFiles, deleteFiles });
    expect(h.score).toBeLessThan(1);
    for (const p of h.partitions) expect(p.score).toBeLessThan(1);
    // each equality delete at sequence 4i+4 applies to the 4i+3 data files before it in its partition
    expect(h.cost.deleteReads).toBe(3 * Array.from({ length: 10 }, (_, i) => 4 * i + 3).reduce((a, b) => a + b, 0));
    const compacted = ['eu', 'us', 'apac'].map((r) => data(40 * frag, 4000 - 130, [r], 41n));
    expect(tableHealth({ specs: [byRegion], dataFiles: compacted, deleteFiles: [] }).score).toBe(100);
  });
  it('a global equality delete (unpartitioned spec) applies to every partition', () => {
    const dataFiles = [data(100 * MiB, 10, ['eu']), data(100 * MiB, 10, ['us'])];
    const h = tableHealth({ specs: [byRegion, unpartitioned], dataFiles, deleteFiles: [eqDel(1, [], 2n, 1)] });
    expect(h.cost.deleteReads).toBe(2);
  });
  it('delete files that apply to no data file still cost an open; a delete-only partition scores 0', () => {
    const h = tableHealth({
      specs: [byRegion],
      dataFiles: [data(120 * MiB, 10, ['eu'])],
      deleteFiles: [posDel(5, ['us'])],
    });
    const us = h.partitions.find((p) => p.partition[0] === 'us')!;
    expect(us.cost.unusedDeleteFiles).toBe(1);
    expect(us.score).toBe(0);
  });
  it('manifests: each live one costs an open; ones holding no live file are skipped', () => {
    // 12 × 120 MiB in 12 manifests of 10 KiB; ideal: 12 entries × 10 KiB/entry → 1 manifest
    const files = Array.from({ length: 12 }, () => data(120 * MiB, 1000));
    const live = Array.from({ length: 12 }, () => ({
      content: 'data',
      length: 10 * 1024,
      addedFilesCount: 1,
      existingFilesCount: 0,
    }));
    const dead = Array.from({ length: 30 }, () => ({
      content: 'data',
      length: 10 * 1024,
      addedFilesCount: 0,
      existingFilesCount: 0,
    }));
    const h = tableHealth({ dataFiles: files, deleteFiles: [], manifests: [...live, ...dead] });
    expect(h.cost.manifests).toBe(12);
    expect(h.cost.idealManifests).toBe(1);
    const kib = 120 / 1024; // 120 KiB of manifests, in MiB
    expect(h.score).toBe(round1((100 * (1488 + 4 + kib)) / (1488 + 48 + kib)));
    // per partition, no manifest terms
    expect(h.partitions[0]!.score).toBe(100);
  });
  it('explainHealth names every term with its numbers', () => {
    const h = tableHealth({ dataFiles: [data(MiB, 10), data(MiB, 10)], deleteFiles: [posDel(1)] });
    const text = explainHealth(h).join('\n');
    expect(text).toMatch(/100 × ideal scan cost \/ actual scan cost/);
    expect(text).toMatch(/\+ 2 data file\(s\) × open-cost +8\.0 MiB/);
    expect(text).toMatch(/\+ 2 delete-file reads/);
    expect(text).toMatch(new RegExp(`score = .* = ${h.score.toFixed(1)}`));
  });
});

describe('health of real tables', () => {
  const temps: string[] = [];
  afterAll(() => {
    temps.forEach((d) => rmSync(d, { recursive: true, force: true }));
    cleanupPaimon();
  });

  it('the demo table scores badly before compaction and well after', { timeout: 180_000 }, async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-health-'));
    temps.push(dir);
    const seeded = await seedDemoTable(dir);
    const before = await buildInspectReport(await openTableForCli(seeded.location, {}));
    expect(before.health.data.fragment.files).toBe(120);
    expect(before.health.deletes.equality.files).toBe(30);
    expect(before.health.score).toBeLessThan(5);
    const opened = await openIcebergForWrite(seeded.location, {});
    try {
      const r = await compactIceberg(opened.table, opened.io, opened.ops!, {});
      expect(r.failedTasks).toEqual([]);
    } finally {
      opened.files.destroy();
    }
    const after = await buildInspectReport(await openTableForCli(seeded.location, {}));
    expect(after.health.cost.dataFiles).toBe(3);
    expect(after.health.score).toBeGreaterThan(95);
  });

  it('fixtures: a Flink upsert table with equality deletes scores badly; a lone small data file is ideal', async () => {
    const flink = await buildInspectReport(
      await openTableForCli(path.join(fixtures, 'impala/iceberg_v2_delete_equality'), {}),
    );
    expect(flink.health.deletes.equality.files).toBeGreaterThan(0);
    expect(flink.health.score).toBeLessThan(20);
    const spark = await buildInspectReport(
      await openTableForCli(path.join(fixtures, 'impala/iceberg_v2_positional_delete_all_rows'), {}),
    );
    // every row deleted: nothing live, so any file read is overhead
    expect(spark.health.cost.deletedShare).toBe(1);
    expect(spark.health.score).toBeLessThan(5);
  });

  // Equality deletes name keys, not rows: their cost is the merge a reader pays (open + read the delete file
  // once per data file it applies to), and they do not shrink the ideal. Expected values from the files on
  // disk (fs sizes), the sequence numbers in the fixtures' manifests (MANIFEST.md) and Iceberg's rules: an
  // equality delete of sequence s applies to data of sequence < s, a position delete to data of sequence ≤ s.
  // Every manifest in metadata/ is live in the current snapshot (the manifest lists hold them all).
  const open = 4 * MiB;
  const sizeOf = (table: string, dir: string, suffix: string) => {
    const d = path.join(fixtures, 'impala', table, dir);
    const hits = readdirSync(d).filter((f) => f.endsWith(suffix));
    expect(hits).toHaveLength(1);
    return statSync(path.join(d, hits[0]!)).size;
  };
  const manifestBytes = (table: string) => {
    const d = path.join(fixtures, 'impala', table, 'metadata');
    const ms = readdirSync(d).filter((f) => /-m\d\.avro$/.test(f));
    return { count: ms.length, bytes: ms.reduce((n, f) => n + statSync(path.join(d, f)).size, 0) };
  };
  /** 100 × ideal / actual for a table of tiny files: ideal = live bytes + 1 file open + 1 manifest. */
  const byHand = (t: {
    table: string;
    data: number[];
    reads: number[];
    unused: number;
    entries: number;
    positionShare: number;
  }) => {
    const m = manifestBytes(t.table);
    const dataBytes = t.data.reduce((a, b) => a + b, 0);
    const actual =
      dataBytes +
      t.data.length * open +
      t.reads.reduce((n, b) => n + open + b, 0) +
      t.unused * open +
      m.count * open +
      m.bytes;
    const ideal = dataBytes * (1 - t.positionShare) + open + open + m.bytes / t.entries;
    return round1((100 * ideal) / actual);
  };
  it('equality-delete fixtures score what a reader pays (> 0), not "100 % deleted rows"', async () => {
    const score = async (table: string) =>
      (await buildInspectReport(await openTableForCli(path.join(fixtures, 'impala', table), {}))).health;
    // Flink upsert, 3 commits each adding data dN (seq N) + equality delete eN (seq N): e1 applies to nothing,
    // e2 to d1, e3 to d1 and d2.
    {
      const t = 'iceberg_v2_delete_equality';
      const d = (u: string) => sizeOf(t, 'data', `${u}-00001.parquet`);
      const e = (u: string) => sizeOf(t, 'data', `${u}-00002.parquet`);
      const [c1, c2, c3] = ['231ec696', '931d6d35', 'e3ac4bad'].map((p) =>
        readdirSync(path.join(fixtures, 'impala', t, 'data'))
          .find((f) => f.includes(p))!
          .replace(/-0000[12]\.parquet$/, ''),
      );
      const h = await score(t);
      expect(h.cost.deletedShare).toBe(0);
      expect(h.score).toBeGreaterThan(0);
      expect(h.score).toBe(
        byHand({
          table: t,
          data: [d(c1!), d(c2!), d(c3!)],
          reads: [e(c2!), e(c3!), e(c3!)],
          unused: 1,
          entries: 6,
          positionShare: 0,
        }),
      );
    }
    // Flink: d1+e1 (seq 1), d2+e2 (seq 2), 2 rows each; then Impala's position delete p (seq 3, 1 row) with
    // no referenced file: applies to d1 and d2. e1 applies to nothing, e2 to d1. 1 of 4 rows position-deleted.
    {
      const t = 'iceberg_v2_delete_both_eq_and_pos';
      const d1 = sizeOf(t, 'data', '38a471ff-46f4-4350-85cc-2e7ba946b34c-00001.parquet');
      const d2 = sizeOf(t, 'data', '72709aba-fb15-4bd6-9758-5f39eb9bdcb7-00001.parquet');
      const e2 = sizeOf(t, 'data', '72709aba-fb15-4bd6-9758-5f39eb9bdcb7-00002.parquet');
      const p = sizeOf(t, 'data', '_data.0.parq');
      const h = await score(t);
      expect(h.score).toBeGreaterThan(0);
      expect(h.score).toBe(
        byHand({ table: t, data: [d1, d2], reads: [e2, p, p], unused: 1, entries: 5, positionShare: 1 / 4 }),
      );
    }
    // Flink under spec 0 identity(d): d1+e1 (seq 1), d2+e2 (seq 2), one partition: e1 applies to nothing, e2 to d1.
    {
      const t = 'iceberg_v2_delete_equality_partition_evolution';
      const d1 = sizeOf(t, 'data/d=2023-12-24', 'bdb0c103-bfaf-49b4-935a-16a951e55b1c-00001.parquet');
      const d2 = sizeOf(t, 'data/d=2023-12-24', 'fe90d7bb-47e7-4221-8e06-f63922d3fa23-00001.parquet');
      const e2 = sizeOf(t, 'data/d=2023-12-24', 'fe90d7bb-47e7-4221-8e06-f63922d3fa23-00002.parquet');
      const h = await score(t);
      expect(h.score).toBeGreaterThan(0);
      expect(h.score).toBe(byHand({ table: t, data: [d1, d2], reads: [e2], unused: 1, entries: 4, positionShare: 0 }));
    }
  });

  it('Paimon: a bucket with L0 files scores below 100, one file per bucket after full compaction scores 100', async () => {
    const t = copyPaimonFixture('pk_table_scan_and_read_mor');
    const inspect = async () => {
      const files = paimonFileIO([]);
      try {
        return (await buildPaimonInspect(t, files)).health;
      } finally {
        files.destroy();
      }
    };
    const before = await inspect();
    const p10 = before.partitions.find((p) => JSON.stringify(p.partition) === '[10]')!;
    // 2 buckets in partition 10: the ideal is one file per bucket, not one per partition
    expect(p10.cost.idealFiles).toBe(2);
    expect(p10.score).toBeLessThan(60);
    await compactPaimon(t, { full: true });
    const after = await inspect();
    expect(after.score).toBe(100);
  });
});
