/**
 * The layering of the code base (docs/how-it-works.md "Layers"), checked over every static import, re-export,
 * type-only import and dynamic `import()` of every .ts file under src/, connectors/, model/ and util/:
 *
 *   shells (src/shells/cli, src/shells/service, src/shells/bindings)
 *     → application layer (src/app)
 *       → src/orchestration, src/distributed, src/lease, src/demo
 *         → the pure core (src/core)          connectors/
 *           → model/, util/ ←─────────────────────┘
 *
 * The policy (layers, ranks, which folder is in which layer, what is a violation) is the ESLint rule's,
 * scripts/eslint/layering.js: one copy. This test runs it over the whole tree, so a violation fails the unit
 * tier even where the editor's lint was not run. A violation is printed as `file → imported file`.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { LAYERED_ROOTS, layerOf, layerViolation } from '../scripts/eslint/layering.js';

const ROOT = resolve(import.meta.dirname, '..');

function tsFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) tsFiles(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

interface ImportEdge {
  from: string;
  to: string;
}

/** Every relative import of a file, resolved to a repository path (`.js` specifiers name `.ts` sources). */
function importsOf(file: string): ImportEdge[] {
  const abs = join(ROOT, file);
  // readImportFiles + detectJavaScriptImports: also `import()` calls and `export … from`
  const info = ts.preProcessFile(readFileSync(abs, 'utf8'), true, true);
  return info.importedFiles
    .filter((i) => i.fileName.startsWith('.'))
    .map((i) => ({
      from: file,
      to: relative(ROOT, resolve(dirname(abs), i.fileName)).replace(/\.js$/, '.ts'),
    }));
}

const violation = (e: ImportEdge) => layerViolation(e.from, e.to);

const FILES = LAYERED_ROOTS.flatMap((r) => tsFiles(join(ROOT, r))).map((f) => relative(ROOT, f));

describe('layering (issue 10): dependencies point one way', () => {
  it('finds the source files and their imports, dynamic ones included', () => {
    expect(FILES.length).toBeGreaterThan(100);
    // known imports of each kind, so a parser that misses a kind fails here rather than passing silently
    const edges = new Set(FILES.flatMap(importsOf).map((e) => `${e.from} → ${e.to}`));
    expect(edges).toContain('src/shells/cli/program.ts → src/shells/cli/commands/index.ts'); // static
    expect(edges).toContain('src/shells/cli/main.ts → connectors/formats/parquet/native-codec.ts'); // static, a shell to a connector
    expect(edges).toContain('src/app/table-model.ts → connectors/paimon/table.ts'); // dynamic import() only
    expect(edges).toContain('src/index.ts → util/errors.ts'); // export * from
  });

  it('every file is in a layer', () => {
    const unlayered = FILES.filter((f) => !layerOf(f));
    expect(unlayered, `files in no layer (add them to AREAS in scripts/eslint/layering.js)`).toEqual([]);
  });

  it('no import points up (shells → src/app → orchestration/distributed/lease → core | connectors → model/util)', () => {
    const bad = FILES.flatMap(importsOf)
      .map((e) => ({ e, why: violation(e) }))
      .filter((x) => x.why !== undefined)
      .map(({ e, why }) => `${e.from} → ${e.to}  (${why})`);
    if (bad.length) console.error(`layering violations:\n${bad.join('\n')}`);
    expect(bad).toEqual([]);
  });

  it('the rule itself rejects what it should', () => {
    const cases: [from: string, to: string, allowed: boolean][] = [
      ['src/shells/service/job.ts', 'src/shells/cli/table-access.ts', false],
      ['src/lease/job-lease.ts', 'src/shells/cli/table-access.ts', false],
      ['src/distributed/seam.ts', 'src/app/open-table.ts', false],
      ['src/distributed/seam.ts', 'src/shells/service/job-types.ts', false],
      ['connectors/iceberg/expire.ts', 'src/lease/job-lease.ts', false],
      ['connectors/iceberg/expire.ts', 'src/app/result.ts', false],
      ['src/core/planning/plan.ts', 'src/orchestration/cancel.ts', false],
      ['src/shells/bindings/bullmq.ts', 'src/shells/service/job.ts', false],
      ['src/index.ts', 'src/shells/cli/result.ts', false],
      ['src/shells/cli/commands/serve.ts', 'src/shells/service/index.ts', true],
      ['src/shells/cli/commands/compact.ts', 'src/app/compact.ts', true],
      ['src/app/compact.ts', 'src/orchestration/compact-iceberg.ts', true],
      ['src/distributed/seam.ts', 'src/orchestration/compact-iceberg.ts', true],
      ['src/orchestration/compact-iceberg.ts', 'connectors/iceberg/table.ts', true],
      ['connectors/iceberg/table.ts', 'model/index.ts', true],
      ['connectors/iceberg/table.ts', 'util/errors.ts', true],
      ['connectors/iceberg/table.ts', 'model/arrow/rows.ts', true],
      ['connectors/paimon/compact-pk.ts', 'src/core/planning/plan.ts', false],
      ['connectors/iceberg/scan.ts', 'src/core/execution/executor.ts', false],
      ['src/core/execution/executor.ts', 'connectors/formats/parquet/index.ts', false],
      ['src/core/planning/plan.ts', 'model/decision.ts', true],
      ['model/table.ts', 'connectors/iceberg/table.ts', false],
      ['model/table.ts', 'src/core/planning/plan.ts', false],
      ['util/units.ts', 'util/errors.ts', true],
      ['src/orchestration/iceberg-rewrite-adapter.ts', 'src/core/execution/executor.ts', true],
      ['src/orchestration/iceberg-rewrite-adapter.ts', 'connectors/iceberg/table.ts', true],
    ];
    for (const [from, to, allowed] of cases)
      expect(violation({ from, to }) === undefined, `${from} → ${to}`).toBe(allowed);
  });
});
