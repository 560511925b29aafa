/**
 * An ObjectStore wrapper that loses responses: chosen conditional PUTs are applied by the inner store and
 * then fail as if the answer never arrived — with a reset (what the caller sees when its retries run out)
 * or with the 412 a retry of the same PUT receives. Reads of chosen keys can fail too, to make an outcome
 * undecidable. The inner store (memory, local) is not modified.
 */
import { FloeError } from '../../../util/errors.js';
import type {
  Body,
  DeleteManyResult,
  GetOptions,
  ListEntry,
  ListOptions,
  ObjectMeta,
  ObjectStore,
  PutOptions,
  PutResult,
  PutStreamOptions,
} from '../../../connectors/storage/object-store.js';

export type LostResponse = 'reset' | 'retry-412';

export interface LosingRules {
  /** Which create-if-absent PUT loses its response, and how (undefined = answer normally). */
  losePut: (key: string) => LostResponse | undefined;
  /** Reads of these keys fail with a transient error (default: none). */
  failRead?: (key: string) => boolean;
}

export class LosingStore implements ObjectStore {
  /** Keys whose PUT was applied but answered with a failure. */
  readonly lost: string[] = [];

  constructor(
    private readonly inner: ObjectStore,
    private readonly rules: LosingRules,
  ) {}

  describe(key: string): string {
    return this.inner.describe(key);
  }

  private checkRead(key: string): void {
    if (this.rules.failRead?.(key)) {
      throw new FloeError('Transient', `GET ${this.describe(key)}: connection reset (simulated)`, {
        context: { file: this.describe(key) },
      });
    }
  }

  get(key: string, options?: GetOptions): Promise<Uint8Array> {
    this.checkRead(key);
    return this.inner.get(key, options);
  }

  head(key: string): Promise<ObjectMeta> {
    this.checkRead(key);
    return this.inner.head(key);
  }

  exists(key: string): Promise<boolean> {
    this.checkRead(key);
    return this.inner.exists(key);
  }

  async put(key: string, body: Body, options?: PutOptions): Promise<PutResult> {
    const how = options?.ifNoneMatch === '*' ? this.rules.losePut(key) : undefined;
    const result = await this.inner.put(key, body, options);
    if (how === undefined) return result;
    this.lost.push(key);
    if (how === 'reset') {
      throw new FloeError(
        'Transient',
        `PUT ${this.describe(key)}: connection reset after the request was sent (simulated; gave up after 6 attempts)`,
        {
          context: { file: this.describe(key) },
        },
      );
    }
    throw new FloeError(
      'PreconditionFailed',
      `conditional write to ${this.describe(key)} refused: object already exists (the retry of a lost PUT, simulated)`,
      {
        context: { file: this.describe(key) },
      },
    );
  }

  putStream(key: string, body: AsyncIterable<Uint8Array>, options?: PutStreamOptions): Promise<PutResult> {
    return this.inner.putStream(key, body, options);
  }

  list(prefix: string, options?: ListOptions): AsyncIterable<ListEntry> {
    return this.inner.list(prefix, options);
  }

  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }

  deleteMany(keys: readonly string[]): Promise<DeleteManyResult> {
    return this.inner.deleteMany(keys);
  }
}

/** Loses the response of the first create of a key matching `pattern` (once). */
export function loseFirst(pattern: RegExp, how: LostResponse): (key: string) => LostResponse | undefined {
  let done = false;
  return (key) => {
    if (done || !pattern.test(key)) return undefined;
    done = true;
    return how;
  };
}
