/**
 * bench/peak-rss.ts: a child's peak RSS must be its own, not the RSS its (big) parent had at fork —
 * getrusage maxrss carries over fork + exec on Linux, which made every startup-bench child "peak" at the
 * bench parent's size.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const MODULE = pathToFileURL(path.resolve(__dirname, '../../bench/peak-rss.ts')).href;
const MiB = 1024 * 1024;

describe.runIf(process.platform === 'linux')(
  'ownPeakRssBytes (Linux only: reads /proc/self/status; elsewhere it falls back to maxRSS)',
  () => {
    it('reports a child far below the 512 MiB its parent holds at fork', () => {
      const ballast = Buffer.alloc(512 * MiB, 1); // touched pages: resident in this (parent) process
      const script = `const m = await import(${JSON.stringify(MODULE)}); console.log(JSON.stringify({ own: m.ownPeakRssBytes(), maxrss: process.resourceUsage().maxRSS * 1024 }));`;
      const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        encoding: 'utf8',
      });
      const { own, maxrss } = JSON.parse(out) as { own: number; maxrss: number };
      expect(ballast[ballast.length - 1]).toBe(1);
      // the inherited figure shows the problem is real on this machine, the fixed one does not have it
      expect(maxrss).toBeGreaterThan(400 * MiB);
      expect(own).toBeGreaterThan(10 * MiB);
      expect(own).toBeLessThan(300 * MiB);
    });
  },
);
