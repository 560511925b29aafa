/**
 * ObjectStore over S3 (or any S3-compatible server) with @aws-sdk/client-s3.
 *
 * Retries are ours, not the SDK's (the client is built with maxAttempts 1) so that one policy decides:
 * transient failures (throttling, 5xx, connection resets, timeouts) are retried with jittered backoff,
 * everything else fails at once with a FloeError naming the object and, for credential problems, the
 * endpoint and which credentials were used. Every request runs under one p-limit per store.
 *
 * A create-if-absent PUT (`ifNoneMatch: '*'`) whose response was lost is retried like any other request;
 * when the retry answers 412 the object is compared with what we sent (size, MD5 ETag or the bytes) and,
 * if it is ours, the PUT succeeded. floe keeps If-None-Match on its uniquely named files rather than writing
 * them unconditionally: one rule then covers data files and commit files, and a name collision (or a bug
 * writing one name twice) can never overwrite a file a snapshot references.
 *
 * Multipart upload is done here rather than with lib-storage's Upload so each part gets the same retry
 * and timeout policy, parts in flight (and so memory) stay bounded, and a failed upload is aborted.
 *
 * The SDK is imported on the first request, not with this module: FileIO (and so every command and every
 * rewrite worker thread) imports this file, and loading the SDK's CommonJS bundle costs about 0.3 CPU-s
 * per thread that a run on local files never needs.
 */
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import pLimit from 'p-limit';
import { FloeError } from '../../util/errors.js';
import {
  type Body,
  type ByteRange,
  type DeleteManyResult,
  type GetOptions,
  type ListEntry,
  type ListOptions,
  type ObjectMeta,
  type ObjectStore,
  type PutOptions,
  type PutResult,
  type PutStreamOptions,
  checkPutOptions,
  preconditionFailed,
  rechunk,
  toBytes,
} from './object-store.js';
import { storedObjectMatches } from './create-verified.js';
import { partSizeOf } from './request-counter.js';
import type { ConditionalWriteMode } from './conditional-writes.js';
import {
  DEFAULT_RETRY_POLICY,
  type RetryHooks,
  type RetryPolicy,
  isTransientNetworkError,
  withRetry,
} from './retry.js';

/** The one method of S3Client we use; tests pass a fake. */
export interface S3Sender {
  send(command: unknown, options?: { abortSignal?: AbortSignal }): Promise<unknown>;
}

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/**
 * Credentials that change (vended by a catalog, connectors/storage/vended-credentials.ts): the SDK calls it
 * before requests and keeps the answer until near its `expiration`. `description` is what messages say
 * instead of an access key; `id` tells clients apart.
 */
export interface S3CredentialSource {
  (): Promise<S3Credentials & { expiration?: Date }>;
  description: string;
  id: string;
}

export interface S3ConnectionConfig {
  /** e.g. http://127.0.0.1:9000; unset = AWS (or AWS_ENDPOINT_URL[_S3] via the SDK). */
  endpoint?: string;
  /** Unset = the SDK's chain (AWS_REGION, profile); us-east-1 when a custom endpoint is set and none is found. */
  region?: string;
  /** Path-style addressing (http://host/bucket/key), needed by most S3-compatible servers. */
  forcePathStyle?: boolean;
  /** Unset = the standard AWS provider chain (env, shared config/credentials files, SSO, web identity, IMDS). */
  credentials?: S3Credentials | S3CredentialSource;
  /**
   * 'when_required' sends checksums only where S3 demands them; many S3-compatible servers reject the
   * SDK's default aws-chunked checksum trailers. Default: 'when_required' with a custom endpoint.
   */
  checksums?: 'when_supported' | 'when_required';
  /**
   * What the store does with If-None-Match / If-Match (conditional-writes.ts): 'probe' (default) finds out
   * before the first filesystem-table commit; 'honoured' / 'ignored' say so without probing.
   */
  conditionalWrites?: ConditionalWriteMode;
  /** Commit filesystem tables even where conditional create is not honoured (FLOE_S3_UNSAFE_COMMITS=1). */
  unsafeCommits?: boolean;
  /** Which setting the endpoint came from (FLOE_S3_ENDPOINT …), for configuration errors. */
  endpointFrom?: string;
}

export interface S3StoreOptions {
  bucket: string;
  connection?: S3ConnectionConfig;
  /** A client to use instead of building one (shared clients, fakes in tests). */
  client?: S3Sender;
  retry?: Partial<RetryPolicy>;
  retryHooks?: RetryHooks;
  /** Requests in flight per store. */
  concurrency?: number;
  /** Multipart parts in flight per upload (each holds one part in memory). */
  partConcurrency?: number;
}

/** What createS3Client returns: an S3Sender whose SDK client is built (and the SDK imported) on first use. */
export interface S3ClientHandle extends S3Sender {
  /** The SDK client itself (e.g. to add middleware in tests); built on first call. */
  sdkClient(): Promise<S3Client>;
  /** Closes the client's sockets; a later request builds a new client. */
  destroy(): void;
}

export type S3Sdk = typeof import('@aws-sdk/client-s3');
let s3Sdk: Promise<S3Sdk> | undefined;

/** @aws-sdk/client-s3, imported once per thread on first use. */
export function loadS3Sdk(): Promise<S3Sdk> {
  s3Sdk ??= import('@aws-sdk/client-s3').catch((e: unknown) => {
    s3Sdk = undefined;
    throw new FloeError('Internal', `cannot load @aws-sdk/client-s3 (needed for s3:// locations): ${String(e)}`, {
      cause: e,
    });
  });
  return s3Sdk;
}

/** Where an endpoint may be set, as a user reads it in messages. */
const ENDPOINT_SETTINGS = 'FLOE_S3_ENDPOINT (or AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL)';

/** An endpoint must be an http(s) URL: "localhost:9000" would be read as a URL of scheme "localhost". */
function checkEndpoint(endpoint: string, from: string | undefined): void {
  let url: URL | undefined;
  try {
    url = new URL(endpoint);
  } catch {
    url = undefined;
  }
  if (url && (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname) return;
  const guess = /^[a-z][a-z0-9+.-]*:\/\//i.test(endpoint) ? '' : `, e.g. http://${endpoint}`;
  throw new FloeError(
    'InvalidArgument',
    `S3 endpoint ${from ? `${from}=` : ''}${endpoint} is not an http:// or https:// URL: write it with its scheme${guess}`,
    { context: { variable: from ?? 'endpoint', value: endpoint } },
  );
}

export function createS3Client(connection: S3ConnectionConfig = {}): S3ClientHandle {
  if (connection.endpoint) checkEndpoint(connection.endpoint, connection.endpointFrom);
  const config: S3ClientConfig = {
    maxAttempts: 1, // ObjectStore retries itself, with one policy for every request
    forcePathStyle: connection.forcePathStyle ?? false,
  };
  if (connection.endpoint) config.endpoint = connection.endpoint;
  const region = connection.region || process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION;
  if (region) config.region = region;
  else if (connection.endpoint) config.region = 'us-east-1';
  if (connection.credentials) config.credentials = connection.credentials;
  const checksums = connection.checksums ?? (connection.endpoint ? 'when_required' : 'when_supported');
  config.requestChecksumCalculation = checksums === 'when_required' ? 'WHEN_REQUIRED' : 'WHEN_SUPPORTED';
  config.responseChecksumValidation = checksums === 'when_required' ? 'WHEN_REQUIRED' : 'WHEN_SUPPORTED';
  let built: Promise<S3Client> | undefined;
  const sdkClient = () => (built ??= loadS3Sdk().then((sdk) => new sdk.S3Client(config)));
  return {
    sdkClient,
    async send(command, options) {
      const sender: S3Sender = await sdkClient();
      return sender.send(command, options);
    },
    destroy() {
      const b = built;
      built = undefined;
      void b?.then(
        (c) => c.destroy(),
        () => undefined,
      );
    },
  };
}

interface SdkError {
  name?: string;
  message?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number };
}

const THROTTLING = new Set([
  'SlowDown',
  'Throttling',
  'ThrottlingException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
]);
const SERVER_TRANSIENT = new Set([
  'InternalError',
  'ServiceUnavailable',
  'RequestTimeout',
  'ConditionalRequestConflict',
  'OperationAborted',
]);
const CREDENTIAL_ERRORS = new Set([
  'AccessDenied',
  'Forbidden',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'ExpiredToken',
  'InvalidToken',
  'TokenRefreshRequired',
  'CredentialsProviderError',
  'AccountProblem',
]);

export class S3ObjectStore implements ObjectStore {
  readonly bucket: string;
  private readonly client: S3Sender;
  private readonly policy: RetryPolicy;
  private readonly hooks: RetryHooks;
  private readonly limit: ReturnType<typeof pLimit>;
  private readonly partConcurrency: number;
  /** "endpoint http://…" or "the AWS S3 endpoint in <region>", for messages. */
  readonly endpointText: string;
  readonly conditionalWrites: ConditionalWriteMode;
  readonly unsafeCommits: boolean;
  private readonly endpointConfigured: boolean;
  private readonly endpointFrom: string | undefined;
  private readonly credentialText: string;

  constructor(options: S3StoreOptions) {
    this.bucket = options.bucket;
    const connection = options.connection ?? {};
    this.client = options.client ?? createS3Client(connection);
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.hooks = options.retryHooks ?? {};
    this.limit = pLimit(options.concurrency ?? 32);
    this.partConcurrency = Math.max(1, options.partConcurrency ?? 4);
    this.endpointText = connection.endpoint
      ? `endpoint ${connection.endpoint}`
      : `the AWS S3 endpoint${connection.region ? ` in ${connection.region}` : ''}`;
    this.endpointConfigured = !!connection.endpoint;
    this.endpointFrom = connection.endpointFrom;
    this.conditionalWrites = connection.conditionalWrites ?? 'probe';
    this.unsafeCommits = connection.unsafeCommits ?? false;
    this.credentialText =
      typeof connection.credentials === 'function'
        ? connection.credentials.description
        : connection.credentials
          ? `access key ${connection.credentials.accessKeyId} (configured explicitly)`
          : 'credentials from the AWS default chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, SSO, web identity, instance role)';
  }

  describe(key: string): string {
    return `s3://${this.bucket}/${key}`;
  }

  /** One S3 request with retries, timeout and concurrency bound; errors become FloeErrors naming `key`. */
  private request<T>(
    operation: string,
    key: string,
    makeCommand: (sdk: S3Sdk) => unknown,
    // each AWS SDK command has its own output type; the caller's reader knows which one it sent
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    readResult?: (out: any) => Promise<T> | T,
  ): Promise<T> {
    const location = key === '' ? `s3://${this.bucket}` : this.describe(key);
    return this.limit(async () => {
      const sdk = await loadS3Sdk(); // before the first attempt's timeout starts
      return withRetry(
        async (signal) => {
          const out = await this.client.send(makeCommand(sdk), { abortSignal: signal });
          return readResult ? await readResult(out) : (out as T);
        },
        (e, timedOut) => this.classify(e, timedOut, operation, location),
        this.policy,
        this.hooks,
      );
    });
  }

  /** Maps an SDK/network error to a FloeError; only transient kinds are retryable. */
  classify(raw: unknown, timedOut: boolean, operation: string, location: string): FloeError {
    if (raw instanceof FloeError) return raw;
    const e = (raw ?? {}) as SdkError;
    const status = e.$metadata?.httpStatusCode;
    const code = e.Code ?? e.name ?? 'Error';
    const detail = `${code}${e.message && e.message !== code && e.message !== 'UnknownError' ? `: ${e.message}` : ''}`;
    const context = { file: location, operation, code, status, bucket: this.bucket };
    const make = (kind: FloeError['kind'], message: string, retryable?: boolean) =>
      new FloeError(kind, message, { context, cause: raw, ...(retryable === undefined ? {} : { retryable }) });

    if (timedOut)
      return make(
        'Transient',
        `${operation} ${location} timed out after ${this.policy.timeoutMs} ms at ${this.endpointText}`,
        true,
      );
    if (isTransientNetworkError(raw))
      return make('Transient', `${operation} ${location}: connection failed at ${this.endpointText}: ${detail}`, true);
    // configuration errors (exit 2): each says what to set
    if (code === 'NoSuchBucket')
      return make(
        'InvalidArgument',
        `${operation} ${location}: bucket ${this.bucket} does not exist at ${this.endpointText}; ` +
          `check the bucket name, or set ${ENDPOINT_SETTINGS} if it lives on another server`,
      );
    // the SDK's words for no region (unset, or AWS_REGION="") and for one that cannot be a host name
    const badRegion = /Region not accepted: region="([^"]*)"/.exec(e.message ?? '');
    if (/Region is missing/i.test(e.message ?? '') || badRegion?.[1] === '')
      return make(
        'InvalidArgument',
        `${operation} ${location}: no AWS region is configured; set AWS_REGION (or a region in your AWS profile), ` +
          `or, for an S3-compatible server (MinIO, R2, Ceph …), set ${ENDPOINT_SETTINGS} to its URL`,
      );
    if (badRegion)
      return make(
        'InvalidArgument',
        `${operation} ${location}: AWS region "${badRegion[1]}" is not valid; check AWS_REGION`,
      );
    const sysError = raw as { code?: string; hostname?: string };
    if (sysError.code === 'ENOTFOUND') {
      const host = sysError.hostname ?? 'the S3 host';
      return make(
        'InvalidArgument',
        this.endpointConfigured
          ? `${operation} ${location}: host ${host} of ${this.endpointText} does not resolve; check ${this.endpointFrom ?? 'the endpoint'}`
          : `${operation} ${location}: host ${host} does not resolve: no S3 endpoint is set, so floe went to AWS S3; ` +
              `for an S3-compatible server set ${ENDPOINT_SETTINGS} to its URL (e.g. http://127.0.0.1:9000), ` +
              'for AWS check the bucket name and AWS_REGION',
      );
    }
    if (status === 404 || code === 'NoSuchKey' || code === 'NotFound')
      return make('NotFound', `no such object: ${location} (${operation})`);
    if (status === 412 || code === 'PreconditionFailed')
      return make('PreconditionFailed', `conditional write to ${location} refused: ${detail}`);
    if (status === 403 || CREDENTIAL_ERRORS.has(code)) {
      return make(
        'AccessDenied',
        `access denied: ${operation} ${location} at ${this.endpointText} using ${this.credentialText}: ${detail}`,
      );
    }
    if (status === 416 || code === 'InvalidRange')
      return make('InvalidArgument', `invalid byte range for ${location}: ${detail}`);
    if (
      THROTTLING.has(code) ||
      SERVER_TRANSIENT.has(code) ||
      status === 429 ||
      status === 500 ||
      status === 502 ||
      status === 503 ||
      status === 504
    ) {
      return make(
        'Transient',
        `${operation} ${location}: ${detail} (HTTP ${status ?? '?'}) at ${this.endpointText}`,
        true,
      );
    }
    if (sysError.code === 'ECONNREFUSED') {
      return make('Internal', `${operation} ${location}: cannot connect to ${this.endpointText}: ${detail}`);
    }
    return make(
      'Internal',
      `${operation} ${location} failed at ${this.endpointText}: ${detail}${status ? ` (HTTP ${status})` : ''}`,
    );
  }

  async get(key: string, options?: GetOptions): Promise<Uint8Array> {
    const range = options?.range;
    if (range && (('length' in range && range.length === 0) || ('suffixLength' in range && range.suffixLength === 0))) {
      await this.head(key); // a zero-length read still reports a missing object
      return new Uint8Array(0);
    }
    return this.request(
      'GET',
      key,
      (s3) => new s3.GetObjectCommand({ Bucket: this.bucket, Key: key, Range: rangeHeader(range, this.describe(key)) }),
      async (out: { Body?: { transformToByteArray(): Promise<Uint8Array> } }) =>
        out.Body ? out.Body.transformToByteArray() : new Uint8Array(0),
    );
  }

  async head(key: string): Promise<ObjectMeta> {
    const out = await this.request<{ ContentLength?: number; LastModified?: Date; ETag?: string }>(
      'HEAD',
      key,
      (s3) => new s3.HeadObjectCommand({ Bucket: this.bucket, Key: key }),
    );
    return { key, size: out.ContentLength ?? 0, lastModified: out.LastModified ?? new Date(0), etag: out.ETag ?? '' };
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.head(key);
      return true;
    } catch (e) {
      if (e instanceof FloeError && e.kind === 'NotFound') return false; // a missing bucket is InvalidArgument
      throw e;
    }
  }

  async put(key: string, body: Body, options?: PutOptions): Promise<PutResult> {
    checkPutOptions(options, this.describe(key));
    const data = toBytes(body);
    let sends = 0;
    const put = this.request<{ ETag?: string }>('PUT', key, (s3) => {
      sends++;
      return new s3.PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: data,
        ContentLength: data.byteLength,
        ContentType: options?.contentType,
        IfNoneMatch: options?.ifNoneMatch,
        IfMatch: options?.ifMatch,
      });
    });
    let out: { ETag?: string };
    try {
      out = await put;
    } catch (e) {
      // A create-if-absent retried after a lost response meets its own first attempt: 412 then means
      // "already stored" when the object is exactly these bytes (see create-verified.ts for the whole rule).
      if (!(sends > 1 && options?.ifNoneMatch === '*' && e instanceof FloeError && e.kind === 'PreconditionFailed'))
        throw e;
      const etag = await storedObjectMatches(this, key, data).catch(() => undefined);
      if (etag === undefined) throw e;
      out = { ETag: etag };
    }
    return { etag: out.ETag ?? '' };
  }

  async putStream(key: string, body: AsyncIterable<Uint8Array>, options?: PutStreamOptions): Promise<PutResult> {
    const partSize = partSizeOf(options);
    const parts = rechunk(body, partSize)[Symbol.asyncIterator]();
    const first = await parts.next();
    const single = {
      contentType: options?.contentType,
      ...(options?.ifNoneMatch ? { ifNoneMatch: options.ifNoneMatch } : {}),
    };
    if (first.done) return this.put(key, new Uint8Array(0), single);
    const second = await parts.next();
    if (second.done) return this.put(key, first.value, single);
    // [stream] create-if-absent: refuse early when the key exists (the conditional Complete below decides)
    if (options?.ifNoneMatch === '*' && (await this.exists(key)))
      throw preconditionFailed(this.describe(key), 'object already exists');

    const created = await this.request<{ UploadId?: string }>(
      'CreateMultipartUpload',
      key,
      (s3) => new s3.CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: options?.contentType }),
    );
    const uploadId = created.UploadId;
    if (!uploadId)
      throw new FloeError('Internal', `CreateMultipartUpload ${this.describe(key)} returned no upload id`, {
        context: { file: this.describe(key) },
      });
    const done: { PartNumber: number; ETag: string }[] = [];
    const inFlight = new Set<Promise<void>>();
    let failure: unknown;
    const uploadPart = (partNumber: number, data: Uint8Array) => {
      const p = this.request<{ ETag?: string }>(
        `UploadPart ${partNumber}`,
        key,
        (s3) =>
          new s3.UploadPartCommand({
            Bucket: this.bucket,
            Key: key,
            UploadId: uploadId,
            PartNumber: partNumber,
            Body: data,
            ContentLength: data.byteLength,
          }),
      ).then(
        (out) => void done.push({ PartNumber: partNumber, ETag: out.ETag ?? '' }),
        (e) => void (failure ??= e),
      );
      const tracked = p.finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
    };
    try {
      uploadPart(1, first.value);
      uploadPart(2, second.value);
      for (let n = 3; failure === undefined; n++) {
        // Bound memory: read the next part only when a slot is free.
        while (inFlight.size >= this.partConcurrency) await Promise.race(inFlight);
        if (failure !== undefined) break;
        const next = await parts.next();
        if (next.done) break;
        uploadPart(n, next.value);
      }
      await Promise.all(inFlight);
      if (failure !== undefined) throw failure;
      done.sort((a, b) => a.PartNumber - b.PartNumber);
      let sends = 0;
      const complete = this.request<{ ETag?: string }>('CompleteMultipartUpload', key, (s3) => {
        sends++;
        return new s3.CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: done },
          IfNoneMatch: options?.ifNoneMatch,
        });
      });
      try {
        return { etag: (await complete).ETag ?? '' };
      } catch (e) {
        // A Complete retried after a lost response meets its own first attempt (412, or NoSuchUpload): ours
        // when the object's ETag is the multipart ETag of exactly our parts.
        const retried =
          sends > 1 && e instanceof FloeError && (e.kind === 'PreconditionFailed' || e.kind === 'NotFound');
        if (!retried) throw e;
        const meta = await this.head(key).catch(() => undefined);
        if (!meta || meta.etag.replace(/"/g, '') !== multipartEtag(done)) throw e;
        return { etag: meta.etag };
      }
    } catch (e) {
      await Promise.allSettled(inFlight);
      await this.request(
        'AbortMultipartUpload',
        key,
        (s3) => new s3.AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId }),
      ).catch(() => undefined); // best effort; a lifecycle rule reaps what is left
      throw e instanceof FloeError ? e : this.classify(e, false, 'multipart upload', this.describe(key));
    }
  }

  async *list(prefix: string, options?: ListOptions): AsyncIterable<ListEntry> {
    let token: string | undefined;
    do {
      const page = await this.request<{
        Contents?: { Key?: string; Size?: number; LastModified?: Date }[];
        IsTruncated?: boolean;
        NextContinuationToken?: string;
      }>(
        'LIST',
        prefix,
        (s3) =>
          new s3.ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: prefix,
            // MinIO answers MaxKeys=1 under a prefix that is itself a key with that key alone and
            // IsTruncated=false, silently ending the listing: pages are never smaller than 2
            MaxKeys: options?.pageSize === undefined ? undefined : Math.max(2, options.pageSize),
            ContinuationToken: token,
          }),
      );
      for (const o of page.Contents ?? []) {
        if (o.Key !== undefined) yield { key: o.Key, size: o.Size ?? 0, lastModified: o.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async delete(key: string): Promise<void> {
    await this.request('DELETE', key, (s3) => new s3.DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async deleteMany(keys: readonly string[]): Promise<DeleteManyResult> {
    const result: DeleteManyResult = { deleted: [], failed: [] };
    const batches: string[][] = [];
    for (let i = 0; i < keys.length; i += 1000) batches.push(keys.slice(i, i + 1000)); // S3's per-request maximum
    await Promise.all(
      batches.map(async (batch) => {
        try {
          const out = await this.request<{ Errors?: { Key?: string; Code?: string; Message?: string }[] }>(
            'DeleteObjects',
            batch[0]!,
            (s3) =>
              new s3.DeleteObjectsCommand({
                Bucket: this.bucket,
                Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
              }),
          );
          const failedKeys = new Set<string>();
          for (const err of out.Errors ?? []) {
            const key = err.Key ?? '';
            failedKeys.add(key);
            const error = this.classify(
              { name: err.Code, Code: err.Code, message: err.Message },
              false,
              'DELETE',
              this.describe(key),
            );
            result.failed.push({ key, error });
          }
          for (const key of batch) if (!failedKeys.has(key)) result.deleted.push(key);
        } catch (e) {
          // The whole batch failed (after retries): every key in it is reported, each naming itself.
          const base = e instanceof FloeError ? e : this.classify(e, false, 'DeleteObjects', this.describe(batch[0]!));
          for (const key of batch) {
            const error = new FloeError(base.kind, `delete ${this.describe(key)} failed: ${base.message}`, {
              context: { ...base.context, file: this.describe(key) },
              retryable: base.retryable,
              cause: base,
            });
            result.failed.push({ key, error });
          }
        }
      }),
    );
    return result;
  }
}

function rangeHeader(range: ByteRange | undefined, location: string): string | undefined {
  if (range === undefined) return undefined;
  const bad = () =>
    new FloeError('InvalidArgument', `invalid byte range for ${location}: ${JSON.stringify(range)}`, {
      context: { file: location },
    });
  if ('suffixLength' in range) {
    if (!Number.isInteger(range.suffixLength) || range.suffixLength <= 0) throw bad();
    return `bytes=-${range.suffixLength}`;
  }
  if (!Number.isInteger(range.offset) || range.offset < 0) throw bad();
  if (range.length === undefined) return `bytes=${range.offset}-`;
  if (!Number.isInteger(range.length) || range.length < 0) throw bad();
  return `bytes=${range.offset}-${range.offset + range.length - 1}`; // HTTP ranges are inclusive
}

/** S3's ETag of a completed multipart upload: MD5 of the parts' binary MD5s, then "-<parts>". */
export function multipartEtag(parts: readonly { ETag: string }[]): string {
  const md5s = Buffer.concat(parts.map((p) => Buffer.from(p.ETag.replace(/"/g, ''), 'hex')));
  return `${createHash('md5').update(md5s).digest('hex')}-${parts.length}`;
}
