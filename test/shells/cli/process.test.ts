/**
 * The command line as a process: lazy command loading (13 "load lazily"), exit codes from commander's own
 * errors (13.11), the AWS SDK's Node-version warning silenced (13.14), Ctrl-C during compaction (13.16).
 */
import { readdirSync, readFileSync, rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyFixture, floeWith, spawnFloe } from './support.js';

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-cli-proc-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A module hook (run with --import) that appends every loaded file: URL to $FLOE_MODULE_LOG. */
const hookFile = path.join(scratch, 'count-modules.mjs');
writeFileSync(
  hookFile,
  `import { register } from 'node:module';
const hook = \`import { appendFileSync } from 'node:fs';
let file;
export async function initialize(data) { file = data.file; }
export async function load(url, context, next) { if (url.startsWith('file:')) appendFileSync(file, url + '\\\\n'); return next(url, context); }\`;
register('data:text/javascript,' + encodeURIComponent(hook), { data: { file: process.env.FLOE_MODULE_LOG } });
`,
);

async function projectModules(args: string[]): Promise<string[]> {
  const log = path.join(scratch, `modules-${args.join('_').replace(/[^a-z]/gi, '')}.log`);
  const r = await spawnFloe(args, { nodeArgs: ['--import', hookFile], env: { FLOE_MODULE_LOG: log } });
  expect(r.code, r.stderr).toBe(0);
  const urls = [...new Set(readFileSync(log, 'utf8').trim().split('\n'))];
  return urls.filter((u) => !u.includes('/node_modules/'));
}

describe('lazy command loading', () => {
  it('floe --version and floe --help load a handful of floe modules, not every command (186 before)', async () => {
    // main.ts, command-name.ts, the native codec's loader (3 small modules, loaded first: main.ts says why),
    // program.ts, commands/index.ts and what the program needs to print
    const version = await projectModules(['--version']);
    expect(version.length).toBeLessThanOrEqual(10);
    expect(version.some((u) => /\/commands\/(?!index\.)/.test(u))).toBe(false);
    const help = await projectModules(['--help']);
    expect(help.length).toBeLessThanOrEqual(10);
    expect(help.some((u) => u.includes('/commands/compact'))).toBe(false);
  });
  it('floe --help still lists every command', async () => {
    const r = await spawnFloe(['--help']);
    for (const c of [
      'inspect',
      'scan',
      'compact',
      'expire',
      'remove-orphans',
      'rewrite-manifests',
      'plan',
      'simulate',
      'demo',
      'serve',
    ])
      expect(r.stdout).toContain(c);
  });
});

describe('exit codes of a real process', () => {
  it('an unknown option exits 2 (commander alone would exit 1)', async () => {
    const r = await spawnFloe(['inspect', '.', '--no-such-option']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown option/);
  });
});

describe('the AWS SDK Node-version warning', () => {
  // an S3 command against a closed local port: the SDK client is created (that is when it warns), the request fails
  const s3env = {
    FLOE_S3_ENDPOINT: 'http://127.0.0.1:9',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_REGION: 'us-east-1',
    AWS_MAX_ATTEMPTS: '1',
  };
  it('is not printed by floe', async () => {
    const r = await spawnFloe(['inspect', 's3://bucket/db/t'], { env: s3env });
    expect(r.code).not.toBe(0);
    expect(r.stderr).not.toMatch(/NodeVersionSupportWarning|no longer support Node/);
  });
  it('(the same run with the SDK switch turned off prints it: the test can fail)', async () => {
    if (Number(process.versions.node.split('.')[0]) >= 22) return; // the SDK only warns below Node 22
    const r = await spawnFloe(['inspect', 's3://bucket/db/t'], {
      env: { ...s3env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'false' },
    });
    expect(r.stderr).toMatch(/NodeVersionSupportWarning|no longer support Node/);
  });
});

describe('Ctrl-C during compaction', () => {
  // (the table lease, `.floe/lease.json`, is left behind released — not table content)
  const listing = (dir: string) =>
    readdirSync(dir, { recursive: true })
      .map(String)
      .filter((p) => p !== '.floe' && !p.startsWith('.floe/'))
      .sort();

  it('SIGINT right after planning: "cancelled, nothing committed", exit 130, the table as it was', async () => {
    const t = copyFixture('impala/iceberg_v2_positional_not_all_data_files_have_delete_files');
    try {
      const before = listing(t.dir);
      let sent = false;
      const r = await floeWith(
        {
          onStderr: (chunk) => {
            if (!sent && chunk.includes('"event":"plan"')) {
              sent = true;
              process.emit('SIGINT', 'SIGINT'); // what Ctrl-C delivers, inside the running job
            }
          },
        },
        'compact',
        t.dir,
        '-o',
        'self-optimizing.minor.trigger.file-count=2',
        '--progress',
        'json',
      );
      expect(sent).toBe(true);
      expect(r.code).toBe(130);
      expect(r.stderr).toMatch(/cancelled, nothing committed/);
      // no new metadata, no data file left behind
      expect(listing(t.dir)).toEqual(before);
    } finally {
      t.cleanup();
    }
  });
});
