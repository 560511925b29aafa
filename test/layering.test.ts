/**
 * The layering of the code base (docs/how-it-works.md "Layers", issue 10), checked over every static import,
 * re-export, type-only import and dynamic `import()` of every .ts file under src/ and connectors/:
 *
 *   shells (src/cli, src/service, src/bindings)
 *     → application layer (src/app)
 *       → src/orchestration, src/maintenance, src/distributed (and src/simulate, src/demo)
 *         → src/planning, src/execution, src/model, src/util, src/errors.ts, src/health.ts  ← connectors/
 *
 * Dependencies point one way: nothing imports a layer above its own. connectors/ (format and storage
 * adapters) import only the bottom layer; the layers above import connectors. Among the shells only the CLI
 * may import the service (`floe serve` starts it); nothing imports the CLI, and the package root
 * (src/index.ts) exports the library without loading the CLI.
 *
 * A violation is printed as `file → imported file`.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { RANK, layerOf } from '../scripts/eslint/layering.js';

const ROOT = resolve(import.meta.dirname, '..');

// the policy itself (layers, ranks, which folder is in which layer) is the ESLint rule's: one copy

function areaOf(file: string): string {
  return /^(src\/[^/]+|connectors)/.exec(file)?.[1] ?? file;
}

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

/** Why an import breaks the layering, or undefined when it is allowed. */
function violation(e: ImportEdge): string | undefined {
  const from = layerOf(e.from);
  const to = layerOf(e.to);
  if (!to) return e.to.startsWith('src/') || e.to.startsWith('connectors/') ? 'imports an unlayered module' : undefined;
  if (!from) return 'is in no layer';
  const fromArea = areaOf(e.from);
  const toArea = areaOf(e.to);
  if (fromArea === toArea) return undefined;
  if (toArea === 'src/cli') return 'imports the CLI (nothing but the CLI itself may)';
  if (from === 'connectors' && to !== 'connectors' && to !== 'bottom') return `connectors import the ${to} layer`;
  if (from === 'shell' && to === 'shell' && !(fromArea === 'src/cli' && toArea === 'src/service'))
    return 'one shell imports another (only the CLI may start the service)';
  if (RANK[to] > RANK[from]) return `the ${from} layer imports the ${to} layer above it`;
  return undefined;
}

const FILES = [...tsFiles(join(ROOT, 'src')), ...tsFiles(join(ROOT, 'connectors'))].map((f) => relative(ROOT, f));

describe('layering (issue 10): dependencies point one way', () => {
  it('finds the source files and their imports, dynamic ones included', () => {
    expect(FILES.length).toBeGreaterThan(100);
    // known imports of each kind, so a parser that misses a kind fails here rather than passing silently
    const edges = new Set(FILES.flatMap(importsOf).map((e) => `${e.from} → ${e.to}`));
    expect(edges).toContain('src/cli/main.ts → src/cli/commands/index.ts'); // static
    expect(edges).toContain('src/app/table-model.ts → connectors/paimon/table.ts'); // dynamic import() only
    expect(edges).toContain('src/index.ts → src/errors.ts'); // export * from
  });

  it('every file is in a layer', () => {
    const unlayered = FILES.filter((f) => !layerOf(f));
    expect(unlayered, `files in no layer (add them to AREAS in scripts/eslint/layering.js)`).toEqual([]);
  });

  it('no import points up (shells → src/app → orchestration/maintenance/distributed → planning/execution/model ← connectors)', () => {
    const bad = FILES.flatMap(importsOf)
      .map((e) => ({ e, why: violation(e) }))
      .filter((x) => x.why !== undefined)
      .map(({ e, why }) => `${e.from} → ${e.to}  (${why})`);
    if (bad.length) console.error(`layering violations:\n${bad.join('\n')}`);
    expect(bad).toEqual([]);
  });

  it('the rule itself rejects what it should', () => {
    const cases: [from: string, to: string, allowed: boolean][] = [
      ['src/service/job.ts', 'src/cli/table-access.ts', false],
      ['src/maintenance/cli-support.ts', 'src/cli/table-access.ts', false],
      ['src/distributed/seam.ts', 'src/app/open-table.ts', false],
      ['src/distributed/seam.ts', 'src/service/job-types.ts', false],
      ['connectors/iceberg/expire.ts', 'src/maintenance/report.ts', false],
      ['connectors/iceberg/expire.ts', 'src/app/result.ts', false],
      ['src/planning/plan.ts', 'src/orchestration/cancel.ts', false],
      ['src/bindings/bullmq.ts', 'src/service/job.ts', false],
      ['src/index.ts', 'src/cli/result.ts', false],
      ['src/cli/commands/serve.ts', 'src/service/index.ts', true],
      ['src/cli/commands/compact.ts', 'src/app/compact.ts', true],
      ['src/app/compact.ts', 'src/orchestration/compact-iceberg.ts', true],
      ['src/distributed/seam.ts', 'src/orchestration/compact-iceberg.ts', true],
      ['src/orchestration/compact-iceberg.ts', 'connectors/iceberg/table.ts', true],
      ['connectors/iceberg/table.ts', 'src/model/index.ts', true],
      ['connectors/iceberg/table.ts', 'src/errors.ts', true],
    ];
    for (const [from, to, allowed] of cases)
      expect(violation({ from, to }) === undefined, `${from} → ${to}`).toBe(allowed);
  });
});
