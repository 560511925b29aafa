/**
 * A real S3-compatible server for the integration tier. Order of preference (`chooseS3Server`):
 * 1. `S3_TEST_ENDPOINT` (+ AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, optional S3_TEST_BUCKET, AWS_REGION):
 *    a server someone else runs (MinIO, real S3 …). The bucket is created if missing.
 * 2. MinIO in a container via testcontainers (./s3-minio.ts), when a Docker engine is reachable.
 *    Where none is, that is said in one `[s3]` line with testcontainers' reason, then:
 * 3. a server binary built by scripts/setup-s3.sh from the Go module proxy (./s3-binaries.ts): MinIO
 *    (a pinned pseudo-version) by default, FLOE_S3_BINARY=versitygw for the second implementation
 *    (versitygw v1.8.0, posix backend), FLOE_S3_BINARY=floe-s3-server for the gofakes3-based fake; started
 *    on a free 127.0.0.1 port with a temp data dir.
 * If no server can be had the setup FAILS, unless FLOE_SKIP_S3=1, in which case S3 tests skip loudly.
 *
 * Use as vitest `globalSetup` (default export: starts once, exports S3_TEST_* env for every test file) or
 * per file via `acquireS3()`, which reuses what globalSetup exported or starts a private server.
 */
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { startBinaryServer, type BinaryKind } from './s3-binaries.js';
import { probeDocker, startMinio, type DockerProbe } from './s3-minio.js';

export { buildServerBinary } from './s3-binaries.js';

export type S3ServerKind = 'external' | 'minio' | BinaryKind;

export interface S3TestServer {
  kind: S3ServerKind;
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

const DEFAULT_BUCKET = 'floe-test';
const KINDS: readonly S3ServerKind[] = ['external', 'minio', 'versitygw', 'floe-s3-server'];

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

/** The server S3_TEST_ENDPOINT names, or undefined when it is not set. */
export async function fromEnvironment(env: NodeJS.ProcessEnv = process.env): Promise<S3TestServer | undefined> {
  const endpoint = env.S3_TEST_ENDPOINT;
  if (!endpoint) return undefined;
  const s = {
    endpoint,
    region: env.S3_TEST_REGION ?? env.AWS_REGION ?? 'us-east-1',
    bucket: env.S3_TEST_BUCKET ?? DEFAULT_BUCKET,
    accessKeyId: env.S3_TEST_ACCESS_KEY_ID ?? env.AWS_ACCESS_KEY_ID ?? '',
    secretAccessKey: env.S3_TEST_SECRET_ACCESS_KEY ?? env.AWS_SECRET_ACCESS_KEY ?? '',
    forcePathStyle: true as const,
  };
  if (!s.accessKeyId || !s.secretAccessKey) {
    throw new Error(`S3_TEST_ENDPOINT=${endpoint} is set but AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY are not`);
  }
  await ensureBucket(s);
  // globalSetup exports the kind of server it started, so test files know its quirks.
  const exported = env.S3_TEST_SERVER_KIND as S3ServerKind | undefined;
  const kind = exported && KINDS.includes(exported) ? exported : 'external';
  return { ...s, kind, stop: async () => undefined };
}

/** The ways to get a server, injectable so the choice itself is unit-tested (test/s3-test-server/). */
export interface S3ServerSources {
  external(): Promise<S3TestServer | undefined>;
  probeDocker(): Promise<DockerProbe>;
  minio(): Promise<S3TestServer>;
  binary(): Promise<S3TestServer>;
  log(line: string): void;
}

/**
 * External if configured; else MinIO when Docker answers (falling back, loudly, to the binary if the
 * container does not start); else the binary. A binary that cannot be built or started throws.
 */
export async function chooseS3Server(src: S3ServerSources): Promise<S3TestServer> {
  const external = await src.external();
  if (external) return external;
  const docker = await src.probeDocker();
  if (docker.reachable) {
    try {
      const server = await src.minio();
      src.log(`[s3] testcontainers: MinIO container at ${server.endpoint} (Docker engine ${docker.detail})`);
      return server;
    } catch (e) {
      src.log(
        `[s3] testcontainers: Docker is reachable but the MinIO container did not start (${oneLine(e)}); falling back to the S3 server binary`,
      );
    }
  } else {
    src.log(
      `[s3] testcontainers: no Docker engine reachable (${oneLine(docker.reason)}); falling back to the S3 server binary from scripts/setup-s3.sh`,
    );
  }
  return src.binary();
}

function oneLine(e: unknown): string {
  const s = e instanceof Error ? e.message : String(e);
  return s.replace(/\s+/g, ' ').trim().slice(0, 300);
}

export function defaultSources(options: { bucket?: string } = {}): S3ServerSources {
  const bucket = options.bucket ?? DEFAULT_BUCKET;
  return {
    external: () => fromEnvironment(),
    probeDocker,
    minio: async () => {
      const s = await startMinio(bucket);
      try {
        await ensureBucket(s);
      } catch (e) {
        await s.stop();
        throw e;
      }
      return s;
    },
    binary: async () => {
      const s = await startBinaryServer({ bucket });
      try {
        await ensureBucket(s);
      } catch (e) {
        await s.stop();
        throw e;
      }
      return s;
    },
    log: (line) => console.warn(line),
  };
}

/** An external server if configured, else MinIO or our own; throws with the reason if none can be had. */
export function startS3Server(options: { bucket?: string } = {}): Promise<S3TestServer> {
  return chooseS3Server(defaultSources(options));
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

export function skipAllowed(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.FLOE_SKIP_S3 === '1';
}

function loudSkip(reason: string): string {
  const msg = `\n${'!'.repeat(78)}\n!! FLOE_SKIP_S3=1: S3 integration tests are SKIPPED: ${reason}\n${'!'.repeat(78)}\n`;
  console.warn(msg);
  return reason;
}

const HINT =
  '(set S3_TEST_ENDPOINT, start a Docker engine for MinIO, install Go so scripts/setup-s3.sh can build MinIO, or FLOE_SKIP_S3=1 to skip)';

/**
 * What a run does when no server can be had: throw (the run fails) unless FLOE_SKIP_S3=1, which turns it
 * into a loud skip reason.
 */
export function noServer(e: unknown, env: NodeJS.ProcessEnv = process.env): string {
  const reason = `no S3 server: ${e instanceof Error ? e.message : String(e)}`;
  if (!skipAllowed(env)) throw new Error(`${reason}\n${HINT}`);
  return loudSkip(reason);
}

/**
 * For one test file: the server globalSetup exported, or a private one (stopped by `release`).
 * Never silently unavailable: without FLOE_SKIP_S3=1 a failure to start throws.
 */
export async function acquireS3(): Promise<S3Availability & { release(): Promise<void> }> {
  if (process.env.FLOE_S3_SKIPPED)
    return { available: false, reason: process.env.FLOE_S3_SKIPPED, release: async () => undefined };
  try {
    const server = await startS3Server();
    return { available: true, server, release: () => server.stop() };
  } catch (e) {
    return { available: false, reason: noServer(e), release: async () => undefined };
  }
}

/** vitest globalSetup: one server for the whole run; its env is inherited by the test workers. */
export default async function globalSetup(): Promise<() => Promise<void>> {
  let server: S3TestServer;
  try {
    server = await startS3Server();
  } catch (e) {
    process.env.FLOE_S3_SKIPPED = noServer(e);
    return async () => undefined;
  }
  Object.assign(process.env, envFor(server));
  console.log(`[s3] ${server.kind} at ${server.endpoint}, bucket ${server.bucket}`);
  return async () => {
    await server.stop();
  };
}
