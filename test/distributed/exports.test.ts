/** `floe/bullmq` is a package subpath with bullmq and ioredis as optional peers (issue 12.4). */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../connectors/iceberg/helpers.js';

const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  exports: Record<string, { import: string; types: string }>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  devDependencies: Record<string, string>;
};

describe('floe/bullmq', () => {
  it('is exported from the build of src/shells/bindings/bullmq.ts, with optional peers', async () => {
    expect(pkg.exports['./bullmq']).toEqual({
      types: './dist/src/shells/bindings/bullmq.d.ts',
      import: './dist/src/shells/bindings/bullmq.js',
    });
    for (const p of ['bullmq', 'ioredis']) {
      expect(pkg.peerDependencies[p]).toBeDefined();
      expect(pkg.peerDependenciesMeta[p]?.optional).toBe(true);
      expect(pkg.devDependencies[p]).toBeDefined();
    }
    const m = await import('../../src/shells/bindings/bullmq.js');
    expect(typeof m.createFloeWorkers).toBe('function');
    expect(typeof m.enqueueMaintenance).toBe('function');
    expect(typeof m.upsertTableSchedule).toBe('function');
  });
});
