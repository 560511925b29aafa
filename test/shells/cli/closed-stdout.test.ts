/**
 * Issue 28.6: a reader that closes the pipe early (`floe simulate … --json | head`) ends floe quietly with
 * exit 0 — no EPIPE stack trace — for every command, not only `scan`. A real child process whose stdout
 * pipe is closed after the first chunk.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isClosedPipe } from '../../../src/shells/cli/closed-stdout.js';
import { fixtures, repoRoot } from './support.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-epipe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * `floe <args> | head -c 100` through a real shell pipe (a Node child's stdio is a socket pair with a larger
 * buffer, which would hide the problem); returns floe's exit code and its stderr.
 */
function closeAfterFirstChunk(args: string[]): Promise<{ code: number; stderr: string; got: number }> {
  const quoted = [process.execPath, '--import', 'tsx', path.join(repoRoot, 'src/shells/cli/main.ts'), ...args]
    .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
    .join(' ');
  const err = path.join(dir, `stderr-${Math.random().toString(36).slice(2)}`);
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `${quoted} 2>'${err}' | head -c 100; exit \${PIPESTATUS[0]}`], {
      cwd: repoRoot,
      env: { ...process.env, FLOE_DEBUG: '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let got = 0;
    child.stdout.on('data', (d: Buffer) => (got += d.length));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stderr: readFileSync(err, 'utf8'), got }));
  });
}

describe('a closed stdout', () => {
  it('simulate --json | head: exit 0, no stack trace', { timeout: 60_000 }, async () => {
    const r = await closeAfterFirstChunk(['simulate', 'append-1h', '--json', '--out', path.join(dir, 'a.svg')]);
    expect(r.got).toBeGreaterThan(0);
    expect(r.got).toBe(100);
    expect(r.stderr).not.toMatch(/EPIPE|Unhandled|at /);
    expect(r.code).toBe(0);
  });
  it('scan | head: exit 0, no stack trace (the handler scan had is now everyone’s)', { timeout: 60_000 }, async () => {
    const r = await closeAfterFirstChunk([
      'scan',
      path.join(fixtures, 'impala/iceberg_partitioned'),
      '--progress',
      'none',
    ]);
    expect(r.stderr).not.toMatch(/EPIPE|Unhandled|at /);
    expect(r.code).toBe(0);
  });
  it('only closed-pipe errors count as a closed reader', () => {
    expect(isClosedPipe(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).toBe(true);
    expect(isClosedPipe(Object.assign(new Error('nope'), { code: 'ENOENT' }))).toBe(false);
    expect(isClosedPipe(undefined)).toBe(false);
  });
});
