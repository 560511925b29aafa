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
      "import { a } from '../shells/cli/result.js';",
      "import type { B } from '../shells/service/http.js';",
      "export * from '../shells/bindings/bullmq.js';",
      "export type C = import('../app/compact.js').D;",
      "export const e = () => import('../shells/cli/main.js');",
      'export { a, type B };',
    ].join('\n');
    const messages = await layering('src/lease/example.ts', code);
    expect(messages).toHaveLength(5);
    expect(messages[0]).toMatch(/'src\/lease\/example.ts' may not import 'src\/shells\/cli\/result.ts'/);
    expect(messages.join('\n')).toMatch(/src\/app\/compact.ts': the middle layer imports the app layer above it/);
  });

  it('keeps connectors/ off everything but model/ and util/', async () => {
    const code = [
      "import { a } from '../../src/lease/job-lease.js';",
      "import { b } from '../../model/index.js';",
      "import { c } from '../../util/errors.js';",
      "import { d } from '../storage/file-io.js';",
      'export { a, b, c, d };',
    ].join('\n');
    expect(await layering('connectors/iceberg/example.ts', code)).toEqual([
      "'connectors/iceberg/example.ts' may not import 'src/lease/job-lease.ts': connectors import the middle layer.",
    ]);
  });

  it('allows the downward directions, the CLI starting the service, and tests importing anything', async () => {
    expect(await layering('src/shells/cli/commands/example.ts', "export * from '../../service/index.js';")).toEqual([]);
    expect(await layering('src/app/example.ts', "export * from '../orchestration/compact-iceberg.js';")).toEqual([]);
    expect(await layering('test/shells/cli/example.test.ts', "export * from '../../src/shells/cli/main.js';")).toEqual(
      [],
    );
    expect(await layering('src/shells/bindings/example.ts', "export * from '../service/job.js';")).toHaveLength(1);
  });
});
