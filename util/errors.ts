/**
 * floe's single error type. Every failure carries a kind (what went wrong), a message that names the
 * file or table involved, structured context, and whether retrying the same operation can succeed.
 */
export type FloeErrorKind =
  | 'NotFound'
  | 'Corrupt'
  | 'Unsupported'
  | 'CommitConflict'
  | 'PreconditionFailed'
  | 'InvalidArgument'
  | 'AccessDenied'
  | 'Transient'
  /** A job stopped by its AbortSignal (Ctrl-C, a lease lost, a service shutdown); exit code 130. */
  | 'Cancelled'
  /** A commit whose outcome is not known (connectors/commit-state.ts): its files are kept. */
  | 'CommitStateUnknown'
  | 'Internal';

export interface FloeErrorOptions {
  /** Structured facts about the failure: file path, table, snapshot id … */
  context?: Record<string, unknown>;
  /** Defaults to true for Transient and CommitConflict, false otherwise. */
  retryable?: boolean;
  cause?: unknown;
}

const RETRYABLE_BY_DEFAULT: ReadonlySet<FloeErrorKind> = new Set(['Transient', 'CommitConflict']);

export class FloeError extends Error {
  readonly kind: FloeErrorKind;
  readonly context: Record<string, unknown>;
  readonly retryable: boolean;

  constructor(kind: FloeErrorKind, message: string, options: FloeErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'FloeError';
    this.kind = kind;
    this.context = options.context ?? {};
    this.retryable = options.retryable ?? RETRYABLE_BY_DEFAULT.has(kind);
  }

  /** A copy with more context, e.g. the file a low-level decoder was reading. */
  withContext(extra: Record<string, unknown>): FloeError {
    return new FloeError(this.kind, this.message, {
      context: { ...this.context, ...extra },
      retryable: this.retryable,
      cause: this.cause,
    });
  }
}

export function isFloeError(e: unknown, kind?: FloeErrorKind): e is FloeError {
  return e instanceof FloeError && (kind === undefined || e.kind === kind);
}

/** Wraps any thrown value as a FloeError of `kind` that names `file`, keeping FloeErrors' own kind. */
export function errorForFile(kind: FloeErrorKind, file: string, what: string, cause: unknown): FloeError {
  if (cause instanceof FloeError) {
    return cause.context.file ? cause : cause.withContext({ file });
  }
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new FloeError(kind, `${what} ${file}: ${detail}`, { context: { file }, cause });
}
