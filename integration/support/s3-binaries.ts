/**
 * The S3 test servers that run as a local process, built by scripts/setup-s3.sh into the build cache
 * (~/.cache/floe or $FLOE_CACHE_DIR):
 * - minio (default): the MinIO server, single drive on a temp directory;
 * - versitygw (FLOE_S3_BINARY=versitygw, the second implementation): Versity's S3 gateway, posix backend;
 * - floe-s3-server (FLOE_S3_BINARY=floe-s3-server): the gofakes3-based fake in scripts/s3-server.
 * Each listens on 127.0.0.1 only, gets one root key pair, and is stopped (and its data removed) by `stop`.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { S3TestServer } from './s3-server.js';

export type BinaryKind = 'minio' | 'versitygw' | 'floe-s3-server';
export const BINARY_KINDS: readonly BinaryKind[] = ['minio', 'versitygw', 'floe-s3-server'];

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const TEST_ACCESS_KEY = 'floe-test';
export const TEST_SECRET_KEY = 'floe-test-secret';

export function binaryKind(env: NodeJS.ProcessEnv = process.env): BinaryKind {
  const v = env.FLOE_S3_BINARY || 'minio';
  if (!(BINARY_KINDS as readonly string[]).includes(v))
    throw new Error(`FLOE_S3_BINARY must be one of ${BINARY_KINDS.join(', ')}, not "${v}"`);
  return v as BinaryKind;
}

/** FLOE_S3_SERVER_BIN, or scripts/setup-s3.sh's cached build (the path it prints last). */
export async function buildServerBinary(kind: BinaryKind = binaryKind()): Promise<string> {
  const override = process.env.FLOE_S3_SERVER_BIN;
  if (override) {
    await fs.access(override).catch(() => {
      throw new Error(`FLOE_S3_SERVER_BIN=${override} does not exist`);
    });
    return override;
  }
  let stdout: string;
  try {
    ({ stdout } = await promisify(execFile)('bash', [path.join(repoRoot, 'scripts/setup-s3.sh')], {
      cwd: repoRoot,
      env: { ...process.env, FLOE_S3_BINARY: kind },
      maxBuffer: 16 * 1024 * 1024,
    }));
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(
      `scripts/setup-s3.sh could not build ${kind}: ${(err.stderr ?? '').trim().split('\n').slice(-8).join('\n') || err.message}`,
    );
  }
  const bin = stdout.trim().split('\n').pop() ?? '';
  await fs.access(bin);
  return bin;
}

/** A port free on 127.0.0.1 now (for servers that take a fixed address). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Resolves once an HTTP request to the port gets any answer (versitygw prints nothing when ready). */
async function waitForHttp(port: number, child: ChildProcess, deadline: number, stderr: () => string): Promise<void> {
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`exited with ${child.exitCode ?? child.signalCode} before listening: ${stderr()}`);
    const answered = await new Promise<boolean>((resolve) => {
      const sock = net.connect(port, '127.0.0.1');
      sock.setTimeout(1000);
      sock.once('connect', () => sock.end('HEAD / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
      sock.once('data', () => {
        sock.destroy();
        resolve(true);
      });
      sock.once('error', () => resolve(false));
      sock.once('timeout', () => {
        sock.destroy();
        resolve(false);
      });
    });
    if (answered) return;
    if (Date.now() > deadline) throw new Error(`did not answer on 127.0.0.1:${port} in time: ${stderr()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** MinIO answers S3 requests only once initialised: wait for its readiness endpoint to say 200. */
async function waitForMinioReady(port: number, child: ChildProcess, deadline: number, stderr: () => string) {
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`exited with ${child.exitCode ?? child.signalCode} before it was ready: ${stderr()}`);
    const status = await new Promise<number>((resolve) => {
      const req = http.get({ host: '127.0.0.1', port, path: '/minio/health/ready', timeout: 1000 }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', () => resolve(0));
      req.on('timeout', () => req.destroy());
    });
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`was not ready on 127.0.0.1:${port} in time: ${stderr()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The "LISTENING host:port" line floe-s3-server prints once it accepts. */
function waitForListeningLine(child: ChildProcess, deadline: number, stderr: () => string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => reject(new Error(`did not start in time: ${stderr()}`)),
      Math.max(0, deadline - Date.now()),
    );
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /LISTENING (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening: ${stderr()}`));
    });
  });
}

export async function startBinaryServer(options: {
  kind?: BinaryKind;
  bucket: string;
  timeoutMs?: number;
}): Promise<S3TestServer> {
  const kind = options.kind ?? binaryKind();
  const bin = await buildServerBinary(kind);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), `floe-${kind}-`));
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  let child: ChildProcess | undefined;
  let stderr = '';
  /** Keeps the server's last 4 kB of stderr for messages; drains stdout unless its lines are read. */
  const watch = (c: ChildProcess, drainStdout: boolean) => {
    if (drainStdout) c.stdout!.resume();
    c.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
    c.on('error', (e) => (stderr += String(e)));
  };
  try {
    let address: string;
    if (kind === 'minio') {
      // a fixed address again (S3 API and the console, which is off but still binds); a race shows as an exit
      const [port, consolePort] = [await freePort(), await freePort()];
      child = spawn(
        bin,
        [
          'server',
          '--quiet',
          '--address',
          `127.0.0.1:${port}`,
          '--console-address',
          `127.0.0.1:${consolePort}`,
          path.join(dataDir, 'data'),
        ],
        {
          env: {
            ...process.env,
            MINIO_ROOT_USER: TEST_ACCESS_KEY,
            MINIO_ROOT_PASSWORD: TEST_SECRET_KEY,
            MINIO_BROWSER: 'off',
            MINIO_UPDATE: 'off',
            MINIO_REGION: 'us-east-1',
            // config, certs and the like under the temp dir, never in the user's ~/.minio
            MINIO_CONFIG_DIR: path.join(dataDir, 'config'),
            MINIO_CERTS_DIR: path.join(dataDir, 'certs'),
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      watch(child, true);
      await waitForMinioReady(port, child, deadline, () => stderr);
      address = `127.0.0.1:${port}`;
    } else if (kind === 'versitygw') {
      // versitygw takes a fixed address; a port taken between freePort() and its bind shows as an exit.
      const port = await freePort();
      // --iam-dir: with its flat-file IAM an unknown access key gets AWS's 403 InvalidAccessKeyId (in
      // single-account mode versitygw 1.8.0 answers 404 XAdminUserNotFound instead).
      await fs.mkdir(path.join(dataDir, 'iam'));
      await fs.mkdir(path.join(dataDir, 'buckets'));
      child = spawn(
        bin,
        [
          '--port',
          `127.0.0.1:${port}`,
          '--region',
          'us-east-1',
          '--quiet',
          '--iam-dir',
          path.join(dataDir, 'iam'),
          'posix',
          path.join(dataDir, 'buckets'),
        ],
        {
          env: { ...process.env, ROOT_ACCESS_KEY: TEST_ACCESS_KEY, ROOT_SECRET_KEY: TEST_SECRET_KEY },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      watch(child, true);
      await waitForHttp(port, child, deadline, () => stderr);
      address = `127.0.0.1:${port}`;
    } else {
      child = spawn(
        bin,
        [
          '-addr',
          '127.0.0.1:0',
          '-data',
          dataDir,
          '-bucket',
          options.bucket,
          '-access-key',
          TEST_ACCESS_KEY,
          '-secret-key',
          TEST_SECRET_KEY,
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      watch(child, false);
      address = await waitForListeningLine(child, deadline, () => stderr);
    }
    const proc = child;
    // a test process that dies without calling stop() must not leave the server running
    const killOnExit = () => proc.kill('SIGKILL');
    process.once('exit', killOnExit);
    const stop = async () => {
      process.removeListener('exit', killOnExit);
      if (proc.exitCode === null && proc.signalCode === null) {
        const exited = new Promise<void>((r) => proc.once('exit', () => r()));
        proc.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
        if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      }
      await fs.rm(dataDir, { recursive: true, force: true });
    };
    return {
      kind,
      endpoint: `http://${address}`,
      region: 'us-east-1',
      bucket: options.bucket,
      accessKeyId: TEST_ACCESS_KEY,
      secretAccessKey: TEST_SECRET_KEY,
      forcePathStyle: true,
      stop,
    };
  } catch (e) {
    child?.kill('SIGKILL');
    await fs.rm(dataDir, { recursive: true, force: true });
    throw new Error(`${kind} (${bin}) ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Runs versitygw's admin CLI against `server` with its root keys (users, bucket owners: vended-credential tests). */
export async function versitygwAdmin(server: S3TestServer, args: string[]): Promise<void> {
  const bin = await buildServerBinary('versitygw');
  await promisify(execFile)(bin, [
    'admin',
    '-a',
    server.accessKeyId,
    '-s',
    server.secretAccessKey,
    '--er',
    server.endpoint,
    ...args,
  ]);
}
