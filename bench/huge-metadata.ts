/**
 * huge-metadata (issue 29.3): an Iceberg table whose current metadata holds 200,000 snapshots (≈93 MiB,
 * bench/huge-metadata-table.ts), read by floe's commands and by Java Iceberg's TableMetadataParser, each a
 * child process measured by bench/rusage.py (wall, CPU, peak RSS of the process).
 *
 * Cases: the like-for-like parse (floe's parseMetadataBytes in bench/huge-metadata-parse.ts against Java's
 * TableMetadataParser.read in bench/java/ReadMetadata.java, run on the Java oracle's classpath), then
 * `floe inspect`, `scan --count` (also under a 1 GiB heap), `compact --dry-run` and `expire --dry-run`.
 * Java's figure includes JVM start (the program is compiled with javac first, unmeasured); the `java-startup`
 * row is the same program on the fixture's small metadata file, for scale. Interleaved repetitions (--reps), medians.
 * Needs `bash scripts/setup-oracles.sh` (the Java oracle) and the shared fixtures; `--snapshots N` resizes.
 */
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, measured } from './compact-1gb.js';
import { tableWithLongHistory } from './huge-metadata-table.js';
import { repoRoot, run } from './table-1gb.js';
import { numberFlag, type Benchmark, type BenchResult } from './types.js';

const MiB = 1024 * 1024;
const buildRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const floeCli = path.join(buildRoot, 'src/shells/cli/main.js');
const floeParse = path.join(buildRoot, 'bench/huge-metadata-parse.js');
const javaLib = path.join(repoRoot, '.cache/oracles/java-target/lib');
const javaReader = path.join(repoRoot, 'bench/java/ReadMetadata.java');
const fixtures = process.env.FLOE_FIXTURES ?? path.resolve(repoRoot, '../shared/fixtures');

interface Case {
  name: string;
  argv: (t: { dir: string; metadataFile: string; smallMetadataFile: string; classes: string }) => string[];
  /** A check of the output, so a case that silently did nothing is not reported as fast. */
  expect: RegExp;
}

const node = (args: string[]) => [process.execPath, ...args];
const CASES: Case[] = [
  { name: 'floe parse', argv: (t) => node([floeParse, t.metadataFile]), expect: /^\d+ \d+ \d+ \d+$/m },
  {
    name: 'java TableMetadataParser',
    argv: (t) => ['java', '-cp', `${t.classes}:${javaLib}/*`, 'ReadMetadata', t.metadataFile],
    expect: /^\d+ \d+ \d+ \d+$/m,
  },
  {
    name: 'java-startup (small file)',
    argv: (t) => ['java', '-cp', `${t.classes}:${javaLib}/*`, 'ReadMetadata', t.smallMetadataFile],
    expect: /^\d+ \d+ \d+ \d+$/m,
  },
  { name: 'floe inspect', argv: (t) => node([floeCli, 'inspect', t.dir]), expect: /snapshot/i },
  {
    name: 'floe scan --count',
    argv: (t) => node([floeCli, 'scan', t.dir, '--count', '--progress', 'none']),
    expect: /^\d+$/m,
  },
  {
    name: 'floe scan --count, 1 GiB heap',
    argv: (t) => node(['--max-old-space-size=1024', floeCli, 'scan', t.dir, '--count', '--progress', 'none']),
    expect: /^\d+$/m,
  },
  {
    name: 'floe compact --dry-run',
    argv: (t) => node([floeCli, 'compact', t.dir, '--dry-run', '--json', '--progress', 'none']),
    expect: /"dryRun":\s*true/,
  },
  {
    name: 'floe expire --dry-run',
    argv: (t) => node([floeCli, 'expire', t.dir, '--dry-run', '--json', '--progress', 'none']),
    expect: /"expiredSnapshots"/,
  },
];

const bench: Benchmark = {
  name: 'huge-metadata',
  description: 'an Iceberg table with 200,000 snapshots: floe commands and the parse vs Java TableMetadataParser',
  async run(ctx): Promise<BenchResult> {
    const snapshots = numberFlag(ctx.flags, 'snapshots', 200_000);
    const reps = numberFlag(ctx.flags, 'reps', 3);
    if (!existsSync(javaLib)) throw new Error(`no Java oracle at ${javaLib}: run \`bash scripts/setup-oracles.sh\``);
    const t = await tableWithLongHistory(snapshots, fixtures);
    const smallMetadataFile = t.metadataFile.replace(
      /v(\d+)\.metadata\.json$/,
      (_m, v) => `v${Number(v) - 1}.metadata.json`,
    );
    // compiled once, before anything is measured (javac is not part of reading metadata)
    const classes = path.join(path.dirname(t.dir), 'java-classes');
    await run('javac', ['-cp', `${javaLib}/*`, '-d', classes, javaReader]);
    const table = { ...t, smallMetadataFile, classes };
    const expected = new RegExp(`^${snapshots + 6} ${snapshots + 6} `, 'm');
    ctx.log(`huge-metadata: ${snapshots} snapshots, ${(t.bytes / MiB).toFixed(1)} MiB at ${t.metadataFile}`);
    const runs = new Map<string, { wall_s: number; cpu_s: number; peak_rss_bytes: number }[]>();
    try {
      for (let r = 0; r < reps; r++) {
        ctx.log(
          `  load average ${loadavg()
            .map((x) => x.toFixed(1))
            .join(' ')}`,
        );
        for (const c of CASES) {
          const m = await measured(c.argv(table), { FLOE_DEBUG: '' });
          const out = m.stdout;
          const want = c.name === 'floe parse' || c.name === 'java TableMetadataParser' ? expected : c.expect;
          if (!want.test(out)) throw new Error(`${c.name}: unexpected output ${out.slice(0, 400)}`);
          ctx.log(`  rep ${r + 1} ${c.name}: ${m.wall_s.toFixed(1)} s, ${(m.peak_rss_bytes / MiB).toFixed(0)} MiB`);
          runs.set(c.name, [...(runs.get(c.name) ?? []), m]);
        }
      }
    } finally {
      t.cleanup();
    }
    const med = (name: string, k: 'wall_s' | 'cpu_s' | 'peak_rss_bytes') => median(runs.get(name)!.map((x) => x[k]));
    const java = 'java TableMetadataParser';
    const rows = CASES.map((c) => ({
      case: c.name,
      'wall s': med(c.name, 'wall_s').toFixed(2),
      'CPU s': med(c.name, 'cpu_s').toFixed(2),
      'peak RSS MiB': (med(c.name, 'peak_rss_bytes') / MiB).toFixed(0),
      'wall × Java': (med(c.name, 'wall_s') / med(java, 'wall_s')).toFixed(2),
      'RSS × Java': (med(c.name, 'peak_rss_bytes') / med(java, 'peak_rss_bytes')).toFixed(2),
      'reps (wall s)': runs
        .get(c.name)!
        .map((x) => x.wall_s.toFixed(1))
        .join(' '),
    }));
    return {
      rows,
      notes: [
        `table: ${snapshots} synthetic ancestors + the fixture's 6 snapshots, ${(t.bytes / MiB).toFixed(1)} MiB vN.metadata.json (bench/huge-metadata-table.ts)`,
        `${reps} interleaved reps, medians; bench/rusage.py per process: wall incl. process/JVM start, CPU user+sys, peak RSS; Java: ${path.basename(javaReader)} (javac'd first) on the oracle's classpath, JVM start included (see java-startup)`,
      ],
      data: Object.fromEntries(runs),
    };
  },
};

export default bench;
