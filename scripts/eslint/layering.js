// ESLint rule `floe/layering`: the one-way dependencies between folders (docs/how-it-works.md "Layers", issue 10).
//
//   shells (src/cli, src/service, src/bindings)
//     → application layer (src/app)
//       → src/orchestration, src/distributed, src/lease (and src/simulate, src/demo)
//         → src/planning, src/execution, src/model, src/util, src/errors.ts, src/health.ts  ← connectors/
//
// Nothing imports a layer above its own; connectors/ import only the bottom layer; among the shells only the
// CLI may import the service (`floe serve` starts it); nothing imports the CLI. The same policy as
// test/layering.test.ts, which checks the whole tree; this rule says it in the editor, file by file.
// Every relative import is resolved against the importing file: static, `export … from`, dynamic `import()`
// and type-only ones. Files outside src/ and connectors/ (tests, benchmarks) may import anything.
import path from 'node:path';

/** Rank of each layer: a file may import its own rank or lower (connectors are a side branch, below). */
export const RANK = { root: 5, shell: 4, app: 3, middle: 2, connectors: 1, bottom: 1 };

/** @type {[prefix: string, layer: keyof typeof RANK][]} */
export const AREAS = [
  ['src/cli/', 'shell'],
  ['src/service/', 'shell'],
  ['src/bindings/', 'shell'],
  ['src/app/', 'app'],
  ['src/orchestration/', 'middle'],
  ['src/maintenance/', 'middle'],
  ['src/distributed/', 'middle'],
  // the table lease every job takes (the CLI, runMaintenanceJob and the engine bindings)
  ['src/lease/', 'middle'],
  // the policy simulator and the demo seeder are used by their CLI commands only
  ['src/simulate/', 'middle'],
  ['src/demo/', 'middle'],
  ['src/planning/', 'bottom'],
  ['src/execution/', 'bottom'],
  ['src/model/', 'bottom'],
  ['src/util/', 'bottom'],
  ['src/errors.ts', 'bottom'],
  ['src/health.ts', 'bottom'],
  ['src/index.ts', 'root'],
  ['connectors/', 'connectors'],
];

/** @param {string} file a repository path with `/` separators */
export function layerOf(file) {
  return AREAS.find(([prefix]) => file === prefix || file.startsWith(prefix))?.[1];
}

/** @param {string} file */
function areaOf(file) {
  return /^(src\/[^/]+|connectors)/.exec(file)?.[1] ?? file;
}

/**
 * Why importing `to` from `from` breaks the layering, or undefined when it is allowed. Both are repository
 * paths of .ts sources ("src/cli/main.ts").
 * @param {string} from
 * @param {string} to
 * @returns {string | undefined}
 */
export function layerViolation(from, to) {
  const fromLayer = layerOf(from);
  const toLayer = layerOf(to);
  if (!toLayer)
    return to.startsWith('src/') || to.startsWith('connectors/') ? 'imports an unlayered module' : undefined;
  if (!fromLayer) return 'is in no layer';
  const fromArea = areaOf(from);
  const toArea = areaOf(to);
  if (fromArea === toArea) return undefined;
  if (toArea === 'src/cli') return 'imports the CLI (nothing but the CLI itself may)';
  if (fromLayer === 'connectors' && toLayer !== 'connectors' && toLayer !== 'bottom')
    return `connectors import the ${toLayer} layer`;
  if (fromLayer === 'shell' && toLayer === 'shell' && !(fromArea === 'src/cli' && toArea === 'src/service'))
    return 'one shell imports another (only the CLI may start the service)';
  if (RANK[toLayer] > RANK[fromLayer]) return `the ${fromLayer} layer imports the ${toLayer} layer above it`;
  return undefined;
}

const toPosix = (p) => p.split(path.sep).join('/');

/** @type {import('eslint').Rule.RuleModule} */
const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'Enforce the one-way dependencies between floe folders' },
    schema: [],
    messages: { layer: "'{{from}}' may not import '{{target}}': {{why}}." },
  },
  create(context) {
    const root = context.cwd;
    const file = toPosix(path.relative(root, context.filename));
    if (!file.startsWith('src/') && !file.startsWith('connectors/')) return {};
    function check(source) {
      if (!source || source.type !== 'Literal' || typeof source.value !== 'string') return;
      if (!source.value.startsWith('.')) return; // packages are not a layering matter
      const target = toPosix(path.relative(root, path.resolve(path.dirname(context.filename), source.value))).replace(
        /\.js$/,
        '.ts',
      );
      const why = layerViolation(file, target);
      if (why) context.report({ node: source, messageId: 'layer', data: { from: file, target, why } });
    }
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
      // `import('../x.js').T` in a type position
      TSImportType: (node) => check(node.argument?.literal ?? node.source),
    };
  },
};

export default { rules: { layering: rule } };
