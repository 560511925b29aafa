/**
 * The testcontainers path: MinIO in a throwaway container, when a Docker engine is reachable.
 * testcontainers (11.x, the line that supports Node 20) finds the engine the way the Docker CLI does
 * (DOCKER_HOST, the context, /var/run/docker.sock, rootless sockets); `probeDocker` asks it and says why not.
 */
import type { S3TestServer } from './s3-server.js';

/** Pinned so a run is repeatable; FLOE_MINIO_IMAGE overrides it. */
export const MINIO_IMAGE = 'minio/minio:RELEASE.2025-04-22T22-12-26Z';
const USER = 'floe-test';
const PASSWORD = 'floe-test-secret';

export type DockerProbe = { reachable: true; detail: string } | { reachable: false; reason: string };

export async function probeDocker(): Promise<DockerProbe> {
  let tc: typeof import('testcontainers');
  try {
    tc = await import('testcontainers');
  } catch (e) {
    return {
      reachable: false,
      reason: `testcontainers is not installed (${e instanceof Error ? e.message : String(e)})`,
    };
  }
  try {
    const client = await tc.getContainerRuntimeClient();
    return {
      reachable: true,
      detail: `${client.info.containerRuntime.host} (engine API ${client.info.containerRuntime.serverVersion})`,
    };
  } catch (e) {
    return { reachable: false, reason: e instanceof Error ? e.message : String(e) };
  }
}

export async function startMinio(bucket: string): Promise<S3TestServer> {
  const { MinioContainer } = await import('@testcontainers/minio');
  const started = await new MinioContainer(process.env.FLOE_MINIO_IMAGE ?? MINIO_IMAGE)
    .withUsername(USER)
    .withPassword(PASSWORD)
    .start();
  return {
    kind: 'minio',
    endpoint: started.getConnectionUrl(),
    region: 'us-east-1',
    bucket,
    accessKeyId: USER,
    secretAccessKey: PASSWORD,
    forcePathStyle: true,
    stop: async () => {
      await started.stop();
    },
  };
}
