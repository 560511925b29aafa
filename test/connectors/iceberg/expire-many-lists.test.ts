/**
 * Issue 29.3, expire on a long history of distinct manifest lists: 1,500 expired snapshots, each with its
 * own manifest list, are planned through the windowed concurrent reads (512 lists a window, 16 reads at a
 * time) in snapshot order: every list is a candidate exactly once, and an unreadable list of an expired
 * snapshot in the middle of a window becomes a warning naming it while the others are still planned.
 */
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { floe } from '../../shells/cli/support.js';
import { tableWithLongHistory } from '../../support/huge-metadata.js';

const N = 1500;
let t: Awaited<ReturnType<typeof tableWithLongHistory>>;
beforeAll(async () => {
  t = await tableWithLongHistory(N, { distinctLists: true });
}, 120_000);
afterAll(() => t?.cleanup());

interface Doc {
  candidates: { location: string; kind: string; reason: string }[];
  warnings: string[];
  details: { expiredSnapshots: string[] };
}

describe(`expire --dry-run over ${N} distinct manifest lists`, () => {
  it('lists every expired snapshot’s manifest list once, in snapshot order', async () => {
    const r = await floe('expire', t.dir, '--dry-run', '--json');
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as Doc;
    expect(doc.details.expiredSnapshots.length).toBe(N + 5);
    const copies = doc.candidates.filter((c) => c.kind === 'manifest-list' && /\/copy-\d+-/.test(c.location));
    expect(copies.map((c) => Number(/\/copy-(\d+)-/.exec(c.location)![1]))).toEqual([...Array(N).keys()]);
    expect(new Set(doc.candidates.map((c) => c.location)).size).toBe(doc.candidates.length);
    expect(doc.warnings).toEqual([]);
  }, 120_000);

  it('an unreadable expired list (inside the second window) is a warning; the rest is still planned', async () => {
    const gone = 700;
    const r0 = await floe('expire', t.dir, '--dry-run', '--json');
    const victim = (JSON.parse(r0.stdout) as Doc).candidates.find((c) => c.location.includes(`/copy-${gone}-`))!;
    rmSync(path.join(t.dir, 'metadata', victim.location.slice(victim.location.lastIndexOf('/') + 1)));
    const r = await floe('expire', t.dir, '--dry-run', '--json');
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as Doc;
    expect(doc.warnings.length).toBe(1);
    expect(doc.warnings[0]).toMatch(new RegExp(`cannot read manifest list \\S*copy-${gone}-.*left for remove-orphans`));
    const copies = doc.candidates.filter((c) => c.kind === 'manifest-list' && /\/copy-\d+-/.test(c.location));
    // the missing list is still named (it belongs to an expired snapshot), and so is every other one
    expect(copies.length).toBe(N);
  }, 120_000);
});
