// ESLint rule `floe/layering`: the one-way dependencies between folders (docs/how-it-works.md "Layers").
//
//   shells (src/shells/cli, src/shells/service, src/shells/bindings)
//     → application layer (src/app)
//       → src/orchestration, src/distributed, src/lease, src/demo
//         → the pure core (src/core: planning, execution, health, simulate)   connectors/
//           → the neutral model and utilities (model/, util/) ←──────────────────┘
//
// Nothing imports a layer above its own. The pure core and connectors/ are side by side and never import
// each other: the core sees tables only through the model, connectors only turn storage and table formats
// into the model. model/ and util/ import nothing else of ours. Among the shells only the CLI may import the
// service (`floe serve` starts it); nothing imports the CLI, and the package root (src/index.ts) exports the
// library without loading the CLI. The same policy as test/layering.test.ts, which checks the whole tree;
// this rule says it in the editor, file by file. Every relative import is resolved against the importing
// file: static, `export … from`, dynamic `import()` and type-only ones. Files outside the layered folders
// (tests, benchmarks, scripts) may import anything.
import path from 'node:path';

/** Rank of each layer: a file may import its own rank or lower (core and connectors share a rank, apart). */
export const RANK = { root: 6, shell: 5, app: 4, middle: 3, core: 2, connectors: 2, base: 1 };

/** The folders that hold layered code. */
export const LAYERED_ROOTS = ['src/', 'connectors/', 'model/', 'util/'];

/** @type {[prefix: string, layer: keyof typeof RANK][]} */
export const AREAS = [
  ['src/shells/cli/', 'shell'],
  ['src/shells/service/', 'shell'],
  ['src/shells/bindings/', 'shell'],
  ['src/app/', 'app'],
  ['src/orchestration/', 'middle'],
  ['src/distributed/', 'middle'],
  // the table lease every job takes (the CLI, runMaintenanceJob and the engine bindings)
  ['src/lease/', 'middle'],
  ['src/demo/', 'middle'],
  ['src/core/', 'core'],
  ['src/index.ts', 'root'],
  ['connectors/', 'connectors'],
  ['model/', 'base'],
  ['util/', 'base'],
];

/** @param {string} file a repository path with `/` separators */
export function layerOf(file) {
  return AREAS.find(([prefix]) => file === prefix || file.startsWith(prefix))?.[1];
}

/** The folder a file belongs to for "same area" purposes: src/shells/cli, src/core/planning, connectors, … */
export function areaOf(file) {
  return /^(src\/(?:shells|core)\/[^/]+|src\/[^/]+|connectors|model|util)/.exec(file)?.[1] ?? file;
}

/**
 * Why importing `to` from `from` breaks the layering, or undefined when it is allowed. Both are repository
 * paths of .ts sources ("src/shells/cli/main.ts").
 * @param {string} from
 * @param {string} to
 * @returns {string | undefined}
 */
export function layerViolation(from, to) {
  const fromLayer = layerOf(from);
  const toLayer = layerOf(to);
  if (!toLayer) return LAYERED_ROOTS.some((r) => to.startsWith(r)) ? 'imports an unlayered module' : undefined;
  if (!fromLayer) return 'is in no layer';
  const fromArea = areaOf(from);
  const toArea = areaOf(to);
  if (fromArea === toArea) return undefined;
  if (toArea === 'src/shells/cli') return 'imports the CLI (nothing but the CLI itself may)';
  if (fromLayer === 'connectors' && toLayer !== 'connectors' && toLayer !== 'base')
    return `connectors import the ${toLayer} layer`;
  if (fromLayer === 'core' && toLayer === 'connectors') return 'the pure core imports a connector';
  if (fromLayer === 'base' && toLayer !== 'base') return `model/ and util/ import the ${toLayer} layer`;
  if (
    fromLayer === 'shell' &&
    toLayer === 'shell' &&
    !(fromArea === 'src/shells/cli' && toArea === 'src/shells/service')
  )
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
    if (!LAYERED_ROOTS.some((r) => file.startsWith(r))) return {};
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
