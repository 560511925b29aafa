/** `floe/temporal` is a package subpath with the @temporalio packages as optional peers (issue 12.5). */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../connectors/iceberg/helpers.js';

const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  exports: Record<string, { import: string; types: string }>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  devDependencies: Record<string, string>;
};

describe('floe/temporal', () => {
  it('is exported from the build of src/shells/bindings/temporal.ts, with optional peers', async () => {
    expect(pkg.exports['./temporal']).toEqual({
      types: './dist/src/shells/bindings/temporal.d.ts',
      import: './dist/src/shells/bindings/temporal.js',
    });
    for (const p of ['@temporalio/client', '@temporalio/worker', '@temporalio/workflow', '@temporalio/activity']) {
      expect(pkg.peerDependencies[p]).toBeDefined();
      expect(pkg.peerDependenciesMeta[p]?.optional).toBe(true);
      expect(pkg.devDependencies[p]).toBeDefined();
    }
    const m = await import('../../../src/shells/bindings/temporal.js');
    for (const f of [
      'createFloeActivities',
      'createFloeWorker',
      'startMaintainTable',
      'upsertTableSchedule',
      'workflowBundle',
      'maintainTableProgress',
    ] as const)
      expect(typeof m[f]).toBe('function');
    expect(Object.keys(m.createFloeActivities()).sort()).toEqual([
      'floeAbandon',
      'floeCommit',
      'floeMaintain',
      'floePlan',
      'floeRewriteGroup',
    ]);
    expect(m.workflowsPath).toBe(path.join(repoRoot, 'src/shells/bindings/temporal-workflow.ts'));
  });

  it('the workflow module imports nothing but @temporalio/workflow at run time (Temporal sandbox)', () => {
    const src = readFileSync(path.join(repoRoot, 'src/shells/bindings/temporal-workflow.ts'), 'utf8');
    const imports = [...src.matchAll(/^import\s+(type\s+)?[^;]*?from\s+'([^']+)'/gm)].map((m) => ({
      typeOnly: !!m[1],
      from: m[2]!,
    }));
    expect(imports.length).toBeGreaterThan(1);
    expect(imports.filter((i) => !i.typeOnly).map((i) => i.from)).toEqual(['@temporalio/workflow']);
  });
});
