/**
 * A real S3-compatible server for the integration tier.
 *
 * Order of preference:
 * 1. `S3_TEST_ENDPOINT` (+ AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, optional S3_TEST_BUCKET, AWS_REGION):
 *    a server someone else runs (MinIO, SeaweedFS, real S3 …). The bucket is created if missing.
 * 2. floe-s3-server (gofakes3 + SigV4 + atomic conditional PUT), built by scripts/setup-s3.sh and started on
 *    a free 127.0.0.1 port with a temp data dir.
 * (No Docker/testcontainers path: this machine's Docker has no engine and containers could not pull images
 * from the registries available here anyway.)
 *
 * If neither works the setup FAILS, unless FLOE_SKIP_S3=1, in which case S3 tests skip with a loud reason.
 *
 * Use as vitest `globalSetup` (default export: starts once, exports S3_TEST_* env for every test file) or
 * per file via `acquireS3()`, which reuses what globalSetup exported or starts a private server.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';

export interface S3TestServer {
  kind: 'external' | 'floe-s3-server';
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: true;
  stop(): Promise<void>;
}

/** What a test file gets: a server, or the reason S3 tests are skipped (only with FLOE_SKIP_S3=1). */
export type S3Availability = { available: true; server: S3TestServer } | { available: false; reason: string };

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DEFAULT_BUCKET = 'floe-test';
const DEFAULT_ACCESS_KEY = 'floe-test';
const DEFAULT_SECRET_KEY = 'floe-test-secret';

async function ensureBucket(s: Omit<S3TestServer, 'stop' | 'kind'>): Promise<void> {
  const client = new S3Client({
    endpoint: s.endpoint,
    region: s.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey },
  });
  try {
    await client.send(new HeadBucketCommand({ Bucket: s.bucket })).catch(async () => {
      await client.send(new CreateBucketCommand({ Bucket: s.bucket }));
    });
  } finally {
    client.destroy();
  }
}

async function fromEnvironment(): Promise<S3TestServer | undefined> {
  const endpoint = process.env.S3_TEST_ENDPOINT;
  if (!endpoint) return undefined;
  const s = {
    endpoint,
    region: process.env.S3_TEST_REGION ?? process.env.AWS_REGION ?? 'us-east-1',
    bucket: process.env.S3_TEST_BUCKET ?? DEFAULT_BUCKET,
    accessKeyId: process.env.S3_TEST_ACCESS_KEY_ID ?? process.env.AWS_ACCESS_KEY_ID ?? '',
    secretAccessKey: process.env.S3_TEST_SECRET_ACCESS_KEY ?? process.env.AWS_SECRET_ACCESS_KEY ?? '',
    forcePathStyle: true as const,
  };
  if (!s.accessKeyId || !s.secretAccessKey) {
    throw new Error(`S3_TEST_ENDPOINT=${endpoint} is set but AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY are not`);
  }
  await ensureBucket(s);
  // globalSetup exports the kind of server it started, so test files know its quirks.
  const kind = process.env.S3_TEST_SERVER_KIND === 'floe-s3-server' ? 'floe-s3-server' : 'external';
  return { ...s, kind, stop: async () => undefined };
}

/** FLOE_S3_SERVER_BIN, or scripts/setup-s3.sh's cached build (the path it prints last). */
export async function buildServerBinary(): Promise<string> {
  const override = process.env.FLOE_S3_SERVER_BIN;
  if (override) {
    await fs.access(override).catch(() => {
      throw new Error(`FLOE_S3_SERVER_BIN=${override} does not exist`);
    });
    return override;
  }
  const { stdout } = await promisify(execFile)('bash', [path.join(repoRoot, 'scripts/setup-s3.sh')], {
    cwd: repoRoot,
    maxBuffer: 16 * 1024 * 1024,
  });
  const bin = stdout.trim().split('\n').pop() ?? '';
  await fs.access(bin);
  return bin;
}

export async function startFloeS3Server(options: { bucket?: string; timeoutMs?: number } = {}): Promise<S3TestServer> {
  const bin = await buildServerBinary();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'floe-s3-'));
  const bucket = options.bucket ?? DEFAULT_BUCKET;
  const child: ChildProcess = spawn(
    bin,
    ['-addr', '127.0.0.1:0', '-data', dataDir, '-bucket', bucket, '-access-key', DEFAULT_ACCESS_KEY, '-secret-key', DEFAULT_SECRET_KEY],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const address = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`floe-s3-server did not start within ${options.timeoutMs ?? 15_000} ms: ${stderr}`)), options.timeoutMs ?? 15_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /LISTENING (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`floe-s3-server exited with ${code} before listening: ${stderr}`));
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  }).catch(async (e) => {
    child.kill('SIGKILL');
    await fs.rm(dataDir, { recursive: true, force: true });
    throw e;
  });
  child.removeAllListeners('exit');
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    await fs.rm(dataDir, { recursive: true, force: true });
  };
  return {
    kind: 'floe-s3-server',
    endpoint: `http://${address}`,
    region: 'us-east-1',
    bucket,
    accessKeyId: DEFAULT_ACCESS_KEY,
    secretAccessKey: DEFAULT_SECRET_KEY,
    forcePathStyle: true,
    stop,
  };
}

/** An external server if configured, else our own; throws with the reason if neither can be had. */
export async function startS3Server(): Promise<S3TestServer> {
  const external = await fromEnvironment();
  if (external) return external;
  return startFloeS3Server();
}

/** The env a test process needs to reach `s`; AWS_* are set too so default-chain clients hit the test server. */
export function envFor(s: S3TestServer): Record<string, string> {
  return {
    S3_TEST_ENDPOINT: s.endpoint,
    S3_TEST_REGION: s.region,
    S3_TEST_BUCKET: s.bucket,
    S3_TEST_ACCESS_KEY_ID: s.accessKeyId,
    S3_TEST_SECRET_ACCESS_KEY: s.secretAccessKey,
    S3_TEST_SERVER_KIND: s.kind,
    AWS_ACCESS_KEY_ID: s.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s.secretAccessKey,
    AWS_REGION: s.region,
    AWS_ENDPOINT_URL_S3: s.endpoint,
  };
}

function skipAllowed(): boolean {
  return process.env.FLOE_SKIP_S3 === '1';
}

function loudSkip(reason: string): string {
  const msg = `\n${'!'.repeat(78)}\n!! FLOE_SKIP_S3=1: S3 integration tests are SKIPPED: ${reason}\n${'!'.repeat(78)}\n`;
  console.warn(msg);
  return reason;
}

/**
 * For one test file: the server globalSetup exported, or a private one (stopped by `release`).
 * Never silently unavailable: without FLOE_SKIP_S3=1 a failure to start throws.
 */
export async function acquireS3(): Promise<S3Availability & { release(): Promise<void> }> {
  if (process.env.FLOE_S3_SKIPPED) return { available: false, reason: process.env.FLOE_S3_SKIPPED, release: async () => undefined };
  try {
    const server = await startS3Server();
    return { available: true, server, release: () => server.stop() };
  } catch (e) {
    const reason = `no S3 server: ${e instanceof Error ? e.message : String(e)}`;
    if (!skipAllowed()) throw new Error(`${reason}\n(set S3_TEST_ENDPOINT, install Go so scripts/setup-s3.sh can build floe-s3-server, or FLOE_SKIP_S3=1 to skip)`);
    return { available: false, reason: loudSkip(reason), release: async () => undefined };
  }
}

/** vitest globalSetup: one server for the whole run; its env is inherited by the test workers. */
export default async function globalSetup(): Promise<() => Promise<void>> {
  let server: S3TestServer;
  try {
    server = await startS3Server();
  } catch (e) {
    const reason = `no S3 server: ${e instanceof Error ? e.message : String(e)}`;
    if (!skipAllowed()) throw new Error(`${reason}\n(set S3_TEST_ENDPOINT, install Go so scripts/setup-s3.sh can build floe-s3-server, or FLOE_SKIP_S3=1 to skip)`);
    process.env.FLOE_S3_SKIPPED = loudSkip(reason);
    return async () => undefined;
  }
  Object.assign(process.env, envFor(server));
  console.log(`[s3] ${server.kind} at ${server.endpoint}, bucket ${server.bucket}`);
  return async () => {
    await server.stop();
  };
}
