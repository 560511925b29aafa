/**
 * A throw-away Redis server for the BullMQ tests: Debian's `redis-server` (scripts/setup-redis.sh) on a free
 * 127.0.0.1 port, with its data in a temp directory, stopped at teardown. A missing binary fails loudly.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

export interface RedisServer {
  host: string;
  port: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = connect(port, '127.0.0.1');
    c.once('error', () => resolve(false));
    c.once('connect', () => c.write('PING\r\n'));
    c.once('data', (d) => {
      resolve(d.toString().startsWith('+PONG'));
      c.destroy();
    });
  });
}

export async function startRedis(): Promise<RedisServer> {
  const which = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (which.error || which.status !== 0) {
    throw new Error(
      'redis-server is not installed: run scripts/setup-redis.sh (Debian: apt-get install redis-server); the BullMQ tests need a real Redis',
    );
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'floe-redis-'));
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
      '--protected-mode',
      'yes',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) break;
    if (await answersPing(port)) {
      return {
        host: '127.0.0.1',
        port,
        stop: async () => {
          if (child.exitCode === null) {
            const gone = new Promise((r) => child.once('exit', r));
            child.kill('SIGTERM');
            await gone;
          }
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
  throw new Error(`redis-server did not start on 127.0.0.1:${port}:\n${log}`);
}
