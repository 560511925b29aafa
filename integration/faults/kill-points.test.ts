/**
 * Kill points (issue 9): `floe compact` (Iceberg, Paimon) and `floe expire` (Iceberg) are run as real
 * processes with FLOE_FAULT_KILL_AT=<point> (util/fault-points.ts), which SIGKILLs the process at that
 * named step — after the first data file, after the manifests, right before and right after the commit
 * write, before expire's file cleanup. After each kill:
 *   1. the table reads back with the same live rows, by floe (`floe scan`) and by the reference engine
 *      (Java Iceberg / Java Paimon);
 *   2. a re-run takes over the killed job's lease at once (its holder is this host's process that is gone) and
 *      says so; then `floe remove-orphans --older-than 0s --force`, and the rows are checked again by both;
 *   3. every file that was not in the pristine table is referenced by the table as the reference engine
 *      sees it (snapshots' manifest lists, manifests and files; current metadata and its log) — nothing
 *      floe wrote is left behind unreferenced.
 * Local disk (the Java oracle's Paimon catalog writes local paths). Prints "kill points: N/M correct".
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  canonicalLine,
  javaIceberg,
  javaMaintenance,
  javaPaimon,
  repoRoot,
  type IcebergOp,
  type InputRow,
  type PaimonChange,
} from '../oracles/index.js';
import { digestLines, liveDigest, runFloe } from './campaign-support.js';
import type { FaultPoint } from '../../util/fault-points.js';

const java = await javaIceberg.available();
const work = mkdtempSync(path.join(os.tmpdir(), 'floe-kill-points-'));
const main = path.join(repoRoot, 'src/shells/cli/main.ts');

const ICE_TYPES = { id: 'long', region: 'string', amount: 'decimal(12,2)', tag: 'string' };
const iceRow = (id: number, v = 0): InputRow => ({
  id: String(id),
  region: ['eu', 'us'][id % 2]!,
  amount: `${id * 7 + v}.25`,
  tag: v ? `v${v}` : null,
});
const ICE_OPS: IcebergOp[] = [
  ...Array.from({ length: 5 }, (_, i): IcebergOp => ({
    op: 'append',
    rows: Array.from({ length: 4 }, (_, j) => iceRow(i * 4 + j + 1)),
  })),
  { op: 'upsert', rows: [iceRow(2, 1), iceRow(7, 1)] },
  { op: 'delete-pos', where: [{ id: '4' }, { id: '13' }] },
];
const PAI_TYPES = { id: 'int', p: 'string', v: 'string', n: 'long' };
const PAI_COMMITS: PaimonChange[][] = Array.from({ length: 5 }, (_, c) =>
  Array.from({ length: 4 }, (_, i) => {
    const id = (c * 3 + i) % 10;
    return {
      kind: c === 4 && i === 0 ? '-D' : '+I',
      row: { id, p: id % 2 ? 'a' : 'b', v: `c${c}i${i}`, n: c * 10 + i },
    } as PaimonChange;
  }),
);

type Format = 'iceberg' | 'paimon';
interface Scenario {
  format: Format;
  command: 'compact' | 'expire';
  point: FaultPoint;
}

const SCENARIOS: Scenario[] = [
  ...(
    [
      'iceberg.data.after-first-file',
      'iceberg.commit.after-manifests',
      'iceberg.commit.before-publish',
      'iceberg.commit.after-publish',
    ] as const
  ).map((point): Scenario => ({ format: 'iceberg', command: 'compact', point })),
  ...(['iceberg.commit.before-publish', 'iceberg.commit.after-publish', 'iceberg.expire.before-cleanup'] as const).map(
    (point): Scenario => ({ format: 'iceberg', command: 'expire', point }),
  ),
  ...(
    [
      'paimon.data.after-first-file',
      'paimon.commit.after-manifests',
      'paimon.commit.before-publish',
      'paimon.commit.after-publish',
    ] as const
  ).map((point): Scenario => ({ format: 'paimon', command: 'compact', point })),
];

interface Table {
  /** What commands get (the Iceberg table dir; the Paimon table dir inside the warehouse). */
  dir: string;
  /** Where the reference engine reads (Iceberg: the table dir; Paimon: the warehouse). */
  refDir: string;
  pristine: string;
  pristineFiles: Set<string>;
  floeDigest: string;
  refDigest: string;
}
const tables = new Map<Format, Table>();
const results: { name: string; correct: boolean; why?: string }[] = [];

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

function argsFor(s: Scenario, t: Table): string[] {
  if (s.command === 'compact') return ['compact', t.dir, '--full', '--progress', 'none'];
  return ['expire', t.dir, '--older-than', '0s', '--retain-last', '1', '--progress', 'none'];
}

async function floeDigest(t: Table): Promise<string> {
  const r = await runFloe(['scan', t.dir], {});
  if (r.exitCode !== 0) throw new Error(`floe scan failed (exit ${r.exitCode}): ${r.stderr.slice(0, 400)}`);
  return digestLines(r.stdout.split('\n').filter((l) => l !== ''));
}

async function refDigest(format: Format, t: Table): Promise<string> {
  if (format === 'iceberg') return liveDigest(await javaIceberg.read(t.refDir));
  return digestLines((await javaPaimon.read(t.refDir, { database: 'db', table: 't' })).map(canonicalLine));
}

/** Files not in the pristine table that the table (as Java reads it) does not reference. */
async function unreferencedNewFiles(format: Format, t: Table): Promise<string[]> {
  // .floe/ holds floe's own bookkeeping (the table lease, a distributed run's plan), never table data
  const fresh = filesUnder(t.dir).filter((f) => !t.pristineFiles.has(f) && !/(^|\/)\.floe\//.test(f));
  const base = (p: string) =>
    p
      .replace(/^file:/, '')
      .split('/')
      .pop()!;
  const referenced = new Set<string>();
  if (format === 'iceberg') {
    const info = await javaMaintenance.icebergInfo(t.refDir);
    referenced.add(base(info.metadataFile));
    const current = JSON.parse(readFileSync(info.metadataFile.replace(/^file:/, ''), 'utf8')) as {
      'metadata-log'?: { 'metadata-file': string }[];
    };
    for (const e of current['metadata-log'] ?? []) referenced.add(base(e['metadata-file']));
    for (const s of info.snapshots)
      for (const f of [s.manifestList, ...s.manifests, ...s.files]) referenced.add(base(f));
    for (const f of info.statistics) referenced.add(base(f));
    referenced.add('version-hint.text');
  } else {
    const info = await javaMaintenance.paimonInfo(t.refDir, { database: 'db', table: 't' });
    for (const s of [...info.snapshots, ...info.tags]) {
      referenced.add(`snapshot-${s.id}`);
      for (const f of [...s.lists, ...s.manifests, ...s.files]) referenced.add(base(f));
    }
    referenced.add('LATEST');
    referenced.add('EARLIEST');
  }
  return fresh.filter((f) => !referenced.has(base(f)));
}

async function runScenario(s: Scenario): Promise<void> {
  const t = tables.get(s.format)!;
  const tableRoot = s.format === 'iceberg' ? t.dir : t.refDir;
  rmSync(tableRoot, { recursive: true, force: true });
  cpSync(t.pristine, tableRoot, { recursive: true });
  const name = `${s.format} ${s.command} killed at ${s.point}`;
  const fail = (why: string) => {
    results.push({ name, correct: false, why });
    expect.fail(`${name}: ${why}`);
  };

  const killed = spawnSync(process.execPath, ['--import', 'tsx', main, ...argsFor(s, t)], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, FLOE_FAULT_KILL_AT: s.point },
    timeout: 240_000,
  });
  if (killed.signal !== 'SIGKILL')
    return fail(
      `the process was not killed at the point (exit ${killed.status}, signal ${killed.signal}): ${killed.stderr.slice(-400)}`,
    );

  const check = async (when: string) => {
    const f = await floeDigest(t).catch((e: unknown) => `unreadable: ${(e as Error).message.slice(0, 300)}`);
    if (f !== t.floeDigest) return `${when}: floe reads ${f}, expected ${t.floeDigest}`;
    const r = await refDigest(s.format, t).catch((e: unknown) => `unreadable: ${(e as Error).message.slice(0, 300)}`);
    if (r !== t.refDigest) return `${when}: the reference engine reads ${r}, expected ${t.refDigest}`;
    return undefined;
  };
  const afterKill = await check('after the kill');
  if (afterKill) return fail(afterKill);

  // The killed process's lease names this host and a process that is gone: the re-run takes it over at once
  // (issue 28.4: no waiting out the TTL), says so, and does the job.
  const again = await runFloe(argsFor(s, t), {});
  if (again.exitCode !== 0) return fail(`the re-run failed (exit ${again.exitCode}): ${again.stderr.slice(0, 400)}`);
  if (!/took over the lease/.test(again.stderr))
    return fail(`the re-run did not say it took over the killed run's lease: ${again.stderr.slice(0, 400)}`);
  const orphans = await runFloe(
    ['remove-orphans', t.dir, '--older-than', '0s', '--force', '--progress', 'none', '--no-lease'],
    {},
  );
  if (orphans.exitCode !== 0)
    return fail(`remove-orphans failed (exit ${orphans.exitCode}): ${orphans.stderr.slice(0, 400)}`);
  const afterRerun = await check('after re-run + remove-orphans');
  if (afterRerun) return fail(afterRerun);
  const left = await unreferencedNewFiles(s.format, t);
  if (left.length) return fail(`files floe wrote are left unreferenced: ${left.slice(0, 8).join(', ')}`);
  results.push({ name, correct: true });
}

describe.skipIf(!java.ok)(
  `kill points (${java.ok ? 'Java reference engine' : `SKIPPED: java unavailable: ${java.reason}`})`,
  () => {
    beforeAll(async () => {
      const iceDir = path.join(work, 'iceberg');
      await javaIceberg.write(iceDir, {
        formatVersion: 2,
        schema: Object.entries(ICE_TYPES).map(([n, type]) => ({
          name: n,
          type,
          required: n === 'id' || n === 'region',
        })),
        partitionSpec: [{ source: 'region' }],
        identifierFields: ['id', 'region'],
        ops: ICE_OPS,
      });
      const paiWarehouse = path.join(work, 'paimon');
      await javaPaimon.write(paiWarehouse, {
        database: 'db',
        table: 't',
        fields: Object.entries(PAI_TYPES).map(([n, type]) => ({ name: n, type })),
        primaryKeys: ['id', 'p'],
        partitionKeys: ['p'],
        options: { bucket: '2', 'write-only': 'true' },
        commits: PAI_COMMITS,
      });
      const setups: [Format, string, string][] = [
        ['iceberg', iceDir, iceDir],
        ['paimon', path.join(paiWarehouse, 'db.db', 't'), paiWarehouse],
      ];
      for (const [format, dir, refDir] of setups) {
        const tableRoot = format === 'iceberg' ? dir : refDir;
        const pristine = path.join(work, `pristine-${format}`);
        cpSync(tableRoot, pristine, { recursive: true });
        const t: Table = {
          dir,
          refDir,
          pristine,
          pristineFiles: new Set(filesUnder(dir)),
          floeDigest: '',
          refDigest: '',
        };
        t.floeDigest = await floeDigest(t);
        t.refDigest = await refDigest(format, t);
        // the same rows by both readers (different line formats, same count)
        expect(t.floeDigest.split(':')[0]).toBe(t.refDigest.split(':')[0]);
        tables.set(format, t);
      }
    }, 600_000);

    afterAll(() => {
      rmSync(work, { recursive: true, force: true });
      if (results.length === 0) return;
      const lines = [`kill points: ${results.filter((r) => r.correct).length}/${results.length} correct`];
      for (const r of results.filter((x) => !x.correct)) lines.push(`  WRONG ${r.name}: ${r.why}`);
      console.log(lines.join('\n'));
    });

    for (const s of SCENARIOS) {
      it(
        `${s.format} ${s.command}: SIGKILL at ${s.point} → readable, same rows; re-run + remove-orphans → same rows, no leftovers`,
        () => runScenario(s),
        600_000,
      );
    }

    it('every scenario ran', () => {
      expect(results.length).toBe(SCENARIOS.length);
    });
  },
);
