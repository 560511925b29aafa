/**
 * Plays a generated history against a TestTable and checks floe's scan against the model after every step,
 * and — after each compaction — time travel to every earlier snapshot against the model's rows at that time.
 */
import { expect } from 'vitest';
import { PARTITIONED_SHAPES, UNPARTITIONED_SHAPES, type KeySource, type Op } from './arbitraries.js';
import { TestTable } from './harness.js';
import type { Column, Row, Value } from './model.js';
import { commitDeletionVectors, commitPositionDeletes } from './positional-deletes.js';
import { loadTableModel, openIcebergTable } from '../../connectors/iceberg/table.js';

export function shapesOf(t: TestTable): Column[][] {
  return t.shape.partitioned ? PARTITIONED_SHAPES : UNPARTITIONED_SHAPES;
}

/** The row a key source stands for: a live row when `fromRow` is set and the table has rows. */
export function sourceRow(t: TestTable, k: KeySource): Row {
  const live = t.model.rows();
  return k.fromRow !== null && live.length > 0 ? live[k.fromRow % live.length]! : k.random;
}

export async function expectScanMatchesModel(t: TestTable, what: string): Promise<void> {
  expect(await t.scan(), `live rows after ${what}`).toEqual(t.model.expected());
}

export async function expectTimeTravel(t: TestTable, what: string): Promise<void> {
  for (const [id, rows] of t.history) expect(await t.scan(id), `snapshot ${id} after ${what}`).toEqual(rows);
}

/** A v3 snapshot may hold at most one deletion vector per data file (spec), counted from the manifests. */
export async function expectAtMostOneDvPerDataFile(t: TestTable, what: string): Promise<void> {
  const m = await loadTableModel(await openIcebergTable(t.dir, { io: t.io }));
  const count = new Map<string, number>();
  for (const d of m.deleteFiles)
    if (d.content === 'deletion-vector') count.set(d.referencedDataFile, (count.get(d.referencedDataFile) ?? 0) + 1);
  expect(
    [...count].filter(([, n]) => n > 1),
    `data files with several DVs after ${what}`,
  ).toEqual([]);
}

export async function applyOp(t: TestTable, op: Op, step: number): Promise<void> {
  const label = `step ${step} (${op.kind})`;
  if (op.kind === 'append') {
    await t.append(op.rows);
  } else if (op.kind === 'delete') {
    const cols = shapesOf(t)[op.shape]!;
    const keys: Value[][] = op.keys.map((k) => TestTable.keyOf(sourceRow(t, k), cols));
    await t.deleteEq(cols, keys);
  } else if (op.kind === 'upsert') {
    // delete the key, then insert a new row with that key in the next commit (how Flink writes an upsert)
    const cols: Column[] = t.shape.partitioned ? ['part', 'id'] : ['id'];
    const target = sourceRow(t, op.target);
    await t.deleteEq(cols, [TestTable.keyOf(target, cols)]);
    const row: Row = [target[0], t.shape.partitioned ? target[1] : op.row[1], op.row[2], op.row[3], op.row[4]];
    await t.append([row]);
  } else if (op.kind === 'bulk') {
    const base = op.row[4] ?? 0n;
    const part = t.shape.partitioned ? op.part : op.row[1];
    await t.append(
      Array.from({ length: op.count }, (_, i): Row => [
        BigInt(i),
        part,
        op.row[2],
        `bulk-${base}-${i}`,
        base + BigInt(i),
      ]),
    );
  } else if (op.kind === 'positional') {
    // v3: deletion vectors, all in one Puffin file; v2: position delete files naming several data files
    if (t.shape.formatVersion >= 3) await commitDeletionVectors(t, op.targets);
    else await commitPositionDeletes(t, op.targets);
  } else {
    const report = await t.compact(op.spec);
    expect(report.failedTasks, `${label}: failed compaction tasks`).toEqual([]);
    // v3 eq→pos writes deletion vectors (issue 14.2): nothing is skipped, and each data file keeps ≤ 1 DV
    expect(report.skippedTasks, `${label}: skipped compaction tasks`).toEqual([]);
    if (t.shape.formatVersion >= 3) await expectAtMostOneDvPerDataFile(t, label);
    await expectScanMatchesModel(t, label);
    await expectTimeTravel(t, label);
    return;
  }
  await expectScanMatchesModel(t, label);
}

export async function runHistory(t: TestTable, ops: readonly Op[]): Promise<void> {
  for (const [i, op] of ops.entries()) await applyOp(t, op, i);
}
