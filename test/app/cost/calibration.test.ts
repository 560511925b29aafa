/**
 * The CPU calibration really measures (two demo-table rewrites in a temporary directory), writes its cache
 * under XDG_CACHE_HOME keyed by codec, floe version, CPU and Node, and the next process reads it back.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';

const cache = mkdtempSync(path.join(os.tmpdir(), 'floe-calibration-'));
afterAll(() => rmSync(cache, { recursive: true, force: true }));

const script = `
import { cpuCalibration } from './src/app/cost/calibration.ts';
const c = await cpuCalibration();
process.stdout.write(JSON.stringify(c));
`;

function calibrate(): { secondsPerFile: number; secondsPerByte: number; source: string; key: string } {
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: path.resolve(import.meta.dirname, '../../..'),
    env: { ...process.env, XDG_CACHE_HOME: cache, FLOE_COST_CALIBRATION: '' },
    encoding: 'utf8',
  });
  return JSON.parse(out) as ReturnType<typeof calibrate>;
}

describe('CPU calibration', () => {
  it('measures once, caches by codec/version/cpu, and is read back from the cache', () => {
    const first = calibrate();
    expect(first.source).toBe('measured');
    expect(first.secondsPerFile).toBeGreaterThan(0);
    expect(first.secondsPerByte).toBeGreaterThan(0);
    const file = path.join(cache, 'floe', 'cost', 'calibration.json');
    expect(existsSync(file)).toBe(true);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(stored)).toEqual([first.key]);
    expect(first.key).toContain(os.cpus()[0]!.model.trim());
    const second = calibrate();
    expect(second).toMatchObject({ source: 'cache', secondsPerFile: first.secondsPerFile });
  }, 180_000);
});
