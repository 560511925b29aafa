/**
 * Issue 12 (table lease) through the real command line: a table another job holds is refused with exit 75
 * and a "table busy" message, and nothing of the table changes; `--no-lease` skips the lease; a finished
 * command leaves the lease released; remove-orphans never deletes the lease file.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalObjectStore } from '../../connectors/storage/index.js';
import { acquireTableLease, readTableLease } from '../../src/lease/lease.js';
import { copyFixture, floe } from '../shells/cli/support.js';

const ice = copyFixture('impala/iceberg_v2_positional_not_all_data_files_have_delete_files');
const paimon = copyFixture('paimon-cpp/pk_table_scan_and_read_mor');
afterAll(() => {
  ice.cleanup();
  paimon.cleanup();
});

/** Every file under `dir` with its size and mtime, except the lease directory. */
function snapshotTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (p !== path.join(dir, '.floe')) walk(p);
      } else {
        const s = statSync(p);
        out.push(`${path.relative(dir, p)} ${s.size} ${s.mtimeMs}`);
      }
    }
  };
  walk(dir);
  return out.sort();
}

const store = new LocalObjectStore('/');
const leaseKey = (dir: string) => `${dir.slice(1)}/.floe/lease.json`;

describe('CLI commands hold the table lease', () => {
  it.each([
    ['compact', ice],
    ['expire', ice],
    ['remove-orphans', ice],
    ['rewrite-manifests', ice],
    ['compact', paimon],
    ['expire', paimon],
  ] as const)('%s on a leased table exits 75 with "table busy", having written nothing', async (command, t) => {
    const lease = await acquireTableLease(store, leaseKey(t.dir), {
      table: t.dir,
      job: 'compact',
      holder: 'worker-7',
      heartbeatMs: 0,
    });
    try {
      const before = snapshotTree(t.dir);
      const r = await floe(command, t.dir, '--json');
      expect(r.code).toBe(75);
      expect(r.stderr).toMatch(
        /table busy: .* is leased by worker-7 \(run [0-9a-f-]+, compact\) until \d{4}-\d\d-\d\dT[\d:.]+Z; nothing was written/,
      );
      const doc = JSON.parse(r.stdout) as { exitCode: number; status: string; error: { message: string } };
      expect(doc).toMatchObject({ exitCode: 75, status: 'busy' });
      expect(snapshotTree(t.dir)).toEqual(before);
      expect((await readTableLease(store, leaseKey(t.dir)))!.holder).toBe('worker-7');
    } finally {
      await lease.release();
    }
  });

  it('--no-lease runs anyway; a dry run needs no lease', async () => {
    const lease = await acquireTableLease(store, leaseKey(ice.dir), {
      table: ice.dir,
      job: 'compact',
      holder: 'elsewhere',
      heartbeatMs: 0,
    });
    try {
      expect((await floe('compact', ice.dir, '--dry-run', '--json')).code).toBe(0);
      expect((await floe('expire', ice.dir, '--no-lease', '--retain-last', '100', '--json')).code).toBe(0);
    } finally {
      await lease.release();
    }
  });

  it('a finished command releases its lease; remove-orphans leaves the lease file alone', async () => {
    const r = await floe('compact', ice.dir, '--strategy', 'binpack', '--json');
    expect(r.code, r.stderr).toBe(0);
    const rec = await readTableLease(store, leaseKey(ice.dir));
    expect(rec?.job).toBe('compact');
    expect(rec?.releasedAtMs).toBeDefined();
    const o = await floe('remove-orphans', ice.dir, '--older-than', '1ms', '--force', '--json');
    expect(o.code, o.stderr).toBe(0);
    const doc = JSON.parse(o.stdout) as { candidates: { location: string }[] };
    expect(doc.candidates.filter((c) => c.location.includes('/.floe/'))).toEqual([]);
    expect((await readTableLease(store, leaseKey(ice.dir)))?.job).toBe('remove-orphans');
  });
});

describe('runMaintenanceJob holds the table lease', () => {
  it('a leased table: compact, expire and remove-orphans fail "table busy" (context.busy) and write nothing; lease: false runs', async () => {
    const { runMaintenanceJob } = await import('../../src/app/maintenance-job.js');
    const lease = await acquireTableLease(store, leaseKey(ice.dir), {
      table: ice.dir,
      job: 'compact',
      holder: 'svc-2',
      heartbeatMs: 0,
    });
    try {
      const before = snapshotTree(ice.dir);
      for (const job of ['compact', 'expire', 'remove-orphans'] as const) {
        await expect(runMaintenanceJob({ table: ice.dir, job })).rejects.toMatchObject({
          context: { busy: true, holder: 'svc-2' },
        });
      }
      expect(snapshotTree(ice.dir)).toEqual(before);
      const r = await runMaintenanceJob({ table: ice.dir, job: 'expire', lease: false, expire: { retainLast: 100 } });
      expect(r.ok).toBe(true);
    } finally {
      await lease.release();
    }
    const r = await runMaintenanceJob({ table: ice.dir, job: 'compact', compact: { strategy: 'binpack' } });
    expect(r.ok).toBe(true);
    expect(await readTableLease(store, leaseKey(ice.dir))).toMatchObject({ job: 'compact' });
    expect((await readTableLease(store, leaseKey(ice.dir)))?.releasedAtMs).toBeDefined();
  });
});

describe('the lease is written only where a table is', () => {
  it.each(['compact', 'expire', 'remove-orphans', 'rewrite-manifests'])(
    '%s on a path that does not exist says so and creates nothing',
    async (command) => {
      const missing = path.join(ice.dir, '..', `no-such-table-${command}`);
      const r = await floe(command, missing);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${missing} does not exist`);
      expect(() => statSync(missing)).toThrow(/ENOENT/);
    },
  );
});

describe('a table refused for corrupt metadata gets no lease file', () => {
  it('compact on metadata with a negative last-sequence-number exits 1 naming the file, and writes nothing', async () => {
    const t = copyFixture('impala/iceberg_v2_positional_not_all_data_files_have_delete_files');
    try {
      const meta = path.join(t.dir, 'metadata', 'v7.metadata.json');
      writeFileSync(
        meta,
        readFileSync(meta, 'utf8').replace(/"last-sequence-number"\s*:\s*\d+/, '"last-sequence-number" : -7'),
      );
      const before = snapshotTree(t.dir);
      const r = await floe('compact', t.dir);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('v7.metadata.json');
      expect(() => statSync(path.join(t.dir, '.floe'))).toThrow(/ENOENT/);
      expect(snapshotTree(t.dir)).toEqual(before);
    } finally {
      t.cleanup();
    }
  });
});
