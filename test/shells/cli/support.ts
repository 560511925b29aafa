/**
 * Running floe's command line in tests: in-process through `run()` (the real commander definitions,
 * stdout/stderr captured, calls serialised) or as a real child process (exit codes, signals, module loading).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Ajv } from 'ajv';
import { run } from '../../../src/shells/cli/program.js';
import { repoRoot } from '../../connectors/iceberg/helpers.js';

export { copyFixture, fixtures, repoRoot } from '../../connectors/iceberg/helpers.js';

export interface FloeRun {
  code: number;
  stdout: string;
  stderr: string;
}

let queue: Promise<unknown> = Promise.resolve();

/** `floe <args>` in this process; returns the exit code main.ts would set and everything written. */
export function floe(...args: string[]): Promise<FloeRun> {
  return floeWith({}, ...args);
}

/** `floe()` with a callback on every stderr write (e.g. to react to a progress line). */
export function floeWith(o: { onStderr?: (chunk: string) => void }, ...args: string[]): Promise<FloeRun> {
  const go = async (): Promise<FloeRun> => {
    const out: string[] = [];
    const err: string[] = [];
    const w1 = process.stdout.write;
    const w2 = process.stderr.write;
    const saved = process.exitCode;
    const text = (c: string | Uint8Array) => (typeof c === 'string' ? c : Buffer.from(c).toString('utf8'));
    process.stdout.write = ((c: string | Uint8Array, ...rest: unknown[]) => {
      out.push(text(c));
      const cb = rest.find((r) => typeof r === 'function') as ((e?: Error) => void) | undefined;
      cb?.();
      return true;
    }) as typeof process.stdout.write;
    process.stderr.write = ((c: string | Uint8Array) => {
      err.push(text(c));
      o.onStderr?.(text(c));
      return true;
    }) as typeof process.stderr.write;
    let code: number;
    try {
      code = await run(['node', 'floe', ...args], { stdout: (t) => out.push(t), stderr: (t) => err.push(t) });
    } finally {
      process.stdout.write = w1;
      process.stderr.write = w2;
      process.exitCode = saved;
    }
    return { code, stdout: out.join(''), stderr: err.join('') };
  };
  const p = queue.then(go, go);
  queue = p.catch(() => undefined);
  return p;
}

/** `floe <args>` as a child process (node + tsx on the sources). */
export function spawnFloe(
  args: string[],
  o: {
    env?: Record<string, string>;
    nodeArgs?: string[];
    onSpawn?: (pid: number) => void;
    onStderr?: (text: string) => void;
  } = {},
): Promise<FloeRun & { signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...(o.nodeArgs ?? []), '--import', 'tsx', path.join(repoRoot, 'src/shells/cli/main.ts'), ...args],
      {
        cwd: repoRoot,
        env: { ...process.env, FLOE_DEBUG: '', ...o.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      o.onStderr?.(stderr);
    });
    if (child.pid !== undefined) o.onSpawn?.(child.pid);
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: code ?? -1, signal, stdout, stderr }));
  });
}

const schema = JSON.parse(readFileSync(path.join(repoRoot, 'schema/floe-result.schema.json'), 'utf8')) as object;
const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile(schema);

/**
 * Parses stdout as exactly one JSON document and checks it against schema/floe-result.schema.json, plus
 * what JSON Schema cannot say: no number in it is an integer beyond 2^53 (those must be strings).
 */
export function resultOf(stdout: string): Record<string, unknown> {
  const doc = JSON.parse(stdout) as Record<string, unknown>; // throws on "Extra data" (two documents)
  if (!validate(doc))
    throw new Error(
      `result does not match schema/floe-result.schema.json: ${ajv.errorsText(validate.errors)}\n${stdout.slice(0, 2000)}`,
    );
  const walk = (v: unknown, where: string): void => {
    if (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v))
      throw new Error(`${where}: integer ${v} beyond 2^53 is not a string`);
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${where}[${i}]`));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${where}.${k}`);
  };
  walk(doc, '$');
  return doc;
}

export function schemaErrors(doc: unknown): string | undefined {
  return validate(doc) ? undefined : ajv.errorsText(validate.errors);
}
