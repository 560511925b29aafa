/**
 * SigV4 signing of REST catalog requests (AWS Glue's Iceberg REST endpoint, S3 Tables), as Java's
 * RESTSigV4Signer does it: `rest.sigv4-enabled=true`, `rest.signing-name` (glue, s3tables; default
 * execute-api), `rest.signing-region` (default $AWS_REGION). Signing is the AWS SDK's own SignatureV4; the
 * credentials are `rest.access-key-id` / `rest.secret-access-key` / `rest.session-token` when given, else the
 * SDK's default provider chain (environment, profile, SSO, web identity, instance role). A bearer token the
 * request already carries moves to `Original-Authorization`, as Java does, since SigV4 owns `Authorization`.
 * Both SDK packages are imported on first use only.
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider, Checksum, SourceData } from '@smithy/types';
import { FloeError } from '../../util/errors.js';

/** node:crypto behind the Checksum interface SignatureV4 hashes with (sha256, or HMAC-sha256 with a key). */
export class NodeSha256 implements Checksum {
  private h: Hash | Hmac;
  constructor(private readonly secret?: SourceData) {
    this.h = this.fresh();
  }
  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', toBuffer(this.secret));
  }
  update(data: Uint8Array | string): void {
    this.h.update(toBuffer(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.h.digest()));
  }
  reset(): void {
    this.h = this.fresh();
  }
}

function toBuffer(d: SourceData): Buffer {
  if (typeof d === 'string') return Buffer.from(d, 'utf8');
  if (ArrayBuffer.isView(d)) return Buffer.from(d.buffer, d.byteOffset, d.byteLength);
  return Buffer.from(d);
}

export interface SigV4Settings {
  service: string;
  region: string;
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** Sign the body hash as `x-amz-content-sha256` (default true, as Java's signer does). */
  applyChecksum?: boolean;
}

/** The signing settings from catalog properties; undefined when `rest.sigv4-enabled` is not true. */
export function sigv4Settings(props: Record<string, string>, catalog: string): SigV4Settings | undefined {
  if (props['rest.sigv4-enabled'] !== 'true') return undefined;
  const region = props['rest.signing-region'] ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (!region)
    throw new FloeError(
      'InvalidArgument',
      `REST catalog ${catalog}: rest.sigv4-enabled=true needs rest.signing-region (or $AWS_REGION)`,
    );
  const keyId = props['rest.access-key-id'];
  const secret = props['rest.secret-access-key'];
  const credentials: SigV4Settings['credentials'] =
    keyId && secret
      ? {
          accessKeyId: keyId,
          secretAccessKey: secret,
          ...(props['rest.session-token'] ? { sessionToken: props['rest.session-token'] } : {}),
        }
      : defaultChain();
  return { service: props['rest.signing-name'] ?? 'execute-api', region, credentials };
}

function defaultChain(): AwsCredentialIdentityProvider {
  let provider: Promise<AwsCredentialIdentityProvider> | undefined;
  return async () => {
    provider ??= import('@aws-sdk/credential-provider-node').then((m) => m.defaultProvider());
    return (await provider)();
  };
}

export interface SignableRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** Returns `req`'s headers with the SigV4 `Authorization`, `X-Amz-Date` (and content hash) added. */
export async function signRequest(
  req: SignableRequest,
  s: SigV4Settings,
  signingDate?: Date,
): Promise<Record<string, string>> {
  const { SignatureV4 } = await import('@smithy/signature-v4');
  const signer = new SignatureV4({
    service: s.service,
    region: s.region,
    credentials: s.credentials,
    sha256: NodeSha256,
    applyChecksum: s.applyChecksum ?? true,
  });
  const u = new URL(req.url);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (k.toLowerCase() === 'authorization') headers['Original-Authorization'] = v;
    else headers[k] = v;
  }
  headers.host = u.host;
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of u.searchParams) {
    const prev = query[k];
    query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  try {
    const signed = await signer.sign(
      {
        method: req.method,
        protocol: u.protocol,
        hostname: u.hostname,
        ...(u.port ? { port: Number(u.port) } : {}),
        path: u.pathname,
        query,
        headers,
        ...(req.body !== undefined ? { body: req.body } : {}),
      },
      signingDate ? { signingDate } : {},
    );
    return signed.headers;
  } catch (e) {
    throw new FloeError(
      'AccessDenied',
      `cannot sign the request to ${u.origin}: no AWS credentials (${(e as Error).message})`,
      {
        cause: e,
      },
    );
  }
}
