/**
 * Issue 25 on local tables: price sheets from the shipped data files and user files, priceOf, the output
 * model, and the CLI/library contract — every compact / expire / remove-orphans result has `estimate`, a real
 * run `measured` too, and a dry run's estimate predicts the real run's counted requests.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRICE_SHEETS, guessOutput, loadPriceSheet, priceOf } from '../../../src/app/cost/index.js';
import { compactTable } from '../../../src/app/compact.js';
import { seedDemoTable } from '../../../src/demo/seed.js';
import type { DataFile } from '../../../model/index.js';
import { floe } from '../../shells/cli/support.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'floe-cost-'));
process.env.FLOE_COST_CALIBRATION = 'off'; // CPU rates are the bench's business; keep the unit tier fast
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('price sheets', () => {
  it('ships aws-s3-standard, r2 and gcs as data files, each with a source URL and a date', () => {
    expect(Object.keys(PRICE_SHEETS).sort()).toEqual(['aws-s3-standard', 'gcs', 'r2']);
    for (const s of Object.values(PRICE_SHEETS)) {
      expect(s.source).toMatch(/^https:\/\//);
      expect(s.date).toMatch(/^\d{4}-\d{2}/);
      expect(s.vcpuHour).toBeGreaterThan(0);
    }
  });

  it('priceOf: requests per 1000 by kind plus compute per vCPU-hour', async () => {
    const file = path.join(scratch, 'p.yaml');
    writeFileSync(file, 'name: t\nputPer1000: 5\ngetPer1000: 0.4\nlistPer1000: 5\ndeletePer1000: 0\nvcpuHour: 3.6\n');
    const sheet = await loadPriceSheet(file);
    expect(sheet.headPer1000).toBe(0.4); // defaults to the GET price
    const c = priceOf(
      { requests: { get: 1000, put: 2000, list: 1000, delete: 500, head: 1000 }, cpuSeconds: 3600 },
      sheet,
    );
    expect(c.requests).toBeCloseTo(0.4 + 10 + 5 + 0 + 0.4, 9);
    expect(c.compute).toBeCloseTo(3.6, 9);
    expect(c).toMatchObject({ currency: 'USD', sheet: 't' });
    writeFileSync(file, 'putPer1000: 5\n');
    await expect(loadPriceSheet(file)).rejects.toThrow(/"getPer1000" must be a number/);
    await expect(loadPriceSheet('nowhere')).rejects.toThrow(/not a price sheet/);
  });
});

describe('output model', () => {
  const file = (rows: number, bytes: number) => ({ recordCount: rows, sizeBytes: bytes }) as DataFile;
  it('fits bytes per file and per row through the inputs and applies them to the rows left', () => {
    // 1000 B of overhead a file, 10 B a row
    const inputs = [file(100, 2000), file(200, 3000), file(400, 5000)];
    const out = guessOutput({ inputs, deletes: [], targetFileSizeBytes: 1 << 20 });
    expect(out).toEqual({ files: 1, bytes: 1000 + 700 * 10 });
    const fewer = guessOutput({
      inputs,
      deletes: [{ recordCount: 200 } as never],
      targetFileSizeBytes: 1 << 20,
    });
    expect(fewer.bytes).toBe(1000 + 500 * 10);
  });
});

describe('estimate and measured on results (local table)', () => {
  let table: string;
  beforeAll(async () => {
    table = (await seedDemoTable(path.join(scratch, 'wh'), 12, 100)).location;
  }, 60_000);

  it('compactTable: the dry run estimates, the real run measures what its counter saw; the dry estimate predicts it', async () => {
    const dry = await compactTable(table, { dryRun: true, parallelism: 1, prices: 'r2' });
    expect(dry.measured).toBeUndefined();
    expect(dry.estimate!.cost.sheet).toBe('r2');
    const real = await compactTable(table, { parallelism: 1 });
    const e = dry.estimate!;
    const m = real.measured!;
    expect(m.requests.put).toBeGreaterThan(0);
    const total = (r: typeof m.requests) => r.get + r.put + r.list + r.delete + r.head;
    expect(Math.abs(total(e.requests) - total(m.requests))).toBeLessThanOrEqual(0.1 * total(m.requests));
    expect(Math.abs(e.bytesWritten - m.bytesWritten)).toBeLessThanOrEqual(0.1 * m.bytesWritten);
    expect(e.benefit.scanFileOpensSaved).toBeGreaterThan(0);
  }, 120_000);

  it('floe expire / remove-orphans --json carry estimate (dry run) and measured (real run); --dry-run prints the estimate line', async () => {
    const dry = await floe('expire', table, '--dry-run', '--older-than', '0s', '--retain-last', '1', '--json');
    const dryDoc = JSON.parse(dry.stdout) as Record<string, { requests?: unknown; cost?: { sheet: string } }>;
    expect(dryDoc.estimate!.cost!.sheet).toBe('aws-s3-standard');
    expect(dryDoc.measured).toBeUndefined();
    const text = await floe('remove-orphans', table, '--dry-run', '--prices', 'gcs');
    expect(text.stdout).toMatch(/estimate: \d+ GET, \d+ PUT, \d+ LIST, \d+ DELETE, \d+ HEAD; .* at gcs/);
    const real = await floe('expire', table, '--older-than', '0s', '--retain-last', '1', '--json');
    const doc = JSON.parse(real.stdout) as Record<string, { requests?: { delete: number } }>;
    expect(doc.estimate).toBeDefined();
    expect(doc.measured!.requests!.delete).toBeGreaterThan(0);
  }, 120_000);
});
