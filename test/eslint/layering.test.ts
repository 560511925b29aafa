/**
 * scripts/eslint/layering.js through the project's real eslint.config.js: the `floe/layering` rule reports an
 * upward import of every syntactic kind (static, re-export, dynamic, type-only, `import()` type) and lets the
 * allowed directions through, so `npm run lint` cannot pass by the rule silently not running.
 */
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: root });

/** The layering messages ESLint reports for `code` as if it were the file `file`. */
async function layering(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages.filter((m) => m.ruleId === 'floe/layering').map((m) => m.message);
}

describe('floe/layering (eslint.config.js)', () => {
  it('reports each kind of upward import from below the shells', async () => {
    const code = [
      "import { a } from '../cli/result.js';",
      "import type { B } from '../service/http.js';",
      "export * from '../bindings/bullmq.js';",
      "export type C = import('../app/compact.js').D;",
      "export const e = () => import('../cli/main.js');",
      'export { a, type B };',
    ].join('\n');
    const messages = await layering('src/maintenance/example.ts', code);
    expect(messages).toHaveLength(5);
    expect(messages[0]).toMatch(/'src\/maintenance\/example.ts' may not import 'src\/cli\/result.ts'/);
    expect(messages.join('\n')).toMatch(/src\/app\/compact.ts': the middle layer imports the app layer above it/);
  });

  it('keeps connectors/ off everything but the bottom layer', async () => {
    const code = [
      "import { a } from '../../src/maintenance/report.js';",
      "import { b } from '../../src/model/index.js';",
      "import { c } from '../../src/errors.js';",
      "import { d } from '../storage/file-io.js';",
      'export { a, b, c, d };',
    ].join('\n');
    expect(await layering('connectors/iceberg/example.ts', code)).toEqual([
      "'connectors/iceberg/example.ts' may not import 'src/maintenance/report.ts': connectors import the middle layer.",
    ]);
  });

  it('allows the downward directions, the CLI starting the service, and tests importing anything', async () => {
    expect(await layering('src/cli/commands/example.ts', "export * from '../../service/index.js';")).toEqual([]);
    expect(await layering('src/app/example.ts', "export * from '../orchestration/compact-iceberg.js';")).toEqual([]);
    expect(await layering('test/cli/example.test.ts', "export * from '../../src/cli/main.js';")).toEqual([]);
    expect(await layering('src/bindings/example.ts', "export * from '../service/job.js';")).toHaveLength(1);
  });
});
