/**
 * Which S3 server the integration tier gets (integration/support/s3-server.ts): S3_TEST_ENDPOINT →
 * that server; else a reachable Docker engine → MinIO via testcontainers; else the binary from
 * scripts/setup-s3.sh; a binary that cannot be had fails the run unless FLOE_SKIP_S3=1. Each fallback is
 * announced in one log line with its reason.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  chooseS3Server,
  fromEnvironment,
  noServer,
  type S3ServerSources,
  type S3TestServer,
} from '../../integration/support/s3-server.js';
import { probeDocker } from '../../integration/support/s3-minio.js';
import { binaryKind } from '../../integration/support/s3-binaries.js';

function server(kind: S3TestServer['kind']): S3TestServer {
  return {
    kind,
    endpoint: `http://${kind}`,
    region: 'us-east-1',
    bucket: 'b',
    accessKeyId: 'a',
    secretAccessKey: 's',
    forcePathStyle: true,
    stop: async () => undefined,
  };
}

/** Fake sources that record what was asked of them. */
function sources(o: { external?: boolean; docker?: boolean | string; minioFails?: string; binaryFails?: string }) {
  const calls: string[] = [];
  const logs: string[] = [];
  const src: S3ServerSources = {
    external: async () => {
      calls.push('external');
      return o.external ? server('external') : undefined;
    },
    probeDocker: async () => {
      calls.push('probe');
      return o.docker === true
        ? { reachable: true, detail: 'unix:///var/run/docker.sock' }
        : { reachable: false, reason: String(o.docker ?? 'no engine') };
    },
    minio: async () => {
      calls.push('minio');
      if (o.minioFails) throw new Error(o.minioFails);
      return server('minio');
    },
    binary: async () => {
      calls.push('binary');
      if (o.binaryFails) throw new Error(o.binaryFails);
      return server('versitygw');
    },
    log: (l) => logs.push(l),
  };
  return { src, calls, logs };
}

describe('S3 test server selection', () => {
  it('S3_TEST_ENDPOINT set → that server; Docker is not even probed', async () => {
    const { src, calls, logs } = sources({ external: true, docker: true });
    expect((await chooseS3Server(src)).kind).toBe('external');
    expect(calls).toEqual(['external']);
    expect(logs).toEqual([]);
  });

  it('no endpoint, Docker reachable → MinIO via testcontainers, no binary built', async () => {
    const { src, calls, logs } = sources({ docker: true });
    expect((await chooseS3Server(src)).kind).toBe('minio');
    expect(calls).toEqual(['external', 'probe', 'minio']);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/MinIO container/);
  });

  it("no endpoint, no Docker engine → the binary, after one loud line giving testcontainers' reason", async () => {
    const { src, calls, logs } = sources({ docker: 'Could not find a working container runtime strategy' });
    expect((await chooseS3Server(src)).kind).toBe('versitygw');
    expect(calls).toEqual(['external', 'probe', 'binary']);
    expect(logs).toEqual([
      expect.stringMatching(
        /no Docker engine reachable \(Could not find a working container runtime strategy\); falling back/,
      ),
    ]);
  });

  it('Docker reachable but the container does not start → says why, then the binary', async () => {
    const { src, calls, logs } = sources({ docker: true, minioFails: 'pull access denied for minio/minio' });
    expect((await chooseS3Server(src)).kind).toBe('versitygw');
    expect(calls).toEqual(['external', 'probe', 'minio', 'binary']);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toContain('pull access denied for minio/minio');
  });

  it('the binary cannot be built → the run fails; FLOE_SKIP_S3=1 turns that into a skip reason', async () => {
    const { src } = sources({ binaryFails: 'setup-s3: no Go toolchain found' });
    const err = await chooseS3Server(src).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(() => noServer(err, {})).toThrow(/no S3 server: setup-s3: no Go toolchain found[\s\S]*FLOE_SKIP_S3=1/);
    expect(noServer(err, { FLOE_SKIP_S3: '1' })).toBe('no S3 server: setup-s3: no Go toolchain found');
  });

  it('an endpoint without credentials is refused, not half-used', async () => {
    await expect(fromEnvironment({ S3_TEST_ENDPOINT: 'http://127.0.0.1:9' })).rejects.toThrow(/AWS_ACCESS_KEY_ID/);
    expect(await fromEnvironment({})).toBeUndefined();
  });

  it('FLOE_S3_BINARY picks the binary (MinIO by default) and rejects anything else', () => {
    expect(binaryKind({})).toBe('minio');
    expect(binaryKind({ FLOE_S3_BINARY: 'versitygw' })).toBe('versitygw');
    expect(binaryKind({ FLOE_S3_BINARY: 'floe-s3-server' })).toBe('floe-s3-server');
    expect(() => binaryKind({ FLOE_S3_BINARY: 'ceph' })).toThrow(/minio, versitygw, floe-s3-server/);
  });

  // The real probe, through testcontainers itself: on a machine without an engine it must answer
  // "unreachable" with testcontainers' reason (that is what the fallback line prints), not hang or throw.
  const noEngineHere = !process.env.DOCKER_HOST && !existsSync('/var/run/docker.sock');
  it.runIf(noEngineHere)('testcontainers is installed and reports why no Docker engine is reachable here', async () => {
    const p = await probeDocker();
    expect(p.reachable).toBe(false);
    if (!p.reachable) {
      expect(p.reason).not.toMatch(/not installed/);
      expect(p.reason.length).toBeGreaterThan(10);
    }
  });
});
