/**
 * floe's versioned JSON result (schema/floe-result.schema.json, docs/usage.md "JSON output"): every command's
 * `--json` output is exactly one document `{ schemaVersion, command, exitCode, status, … }`, and the app layer's
 * job results (src/app/jobs.ts) are the same documents, so the CLI, `floe serve` and library users agree.
 *
 * 64-bit values (snapshot ids, sequence numbers, any bigint) are decimal strings: JSON readers that parse
 * numbers as doubles would silently round them.
 */
import { EXIT, type ExitCode } from './exit-codes.js';

/** The `schemaVersion` field of every document; bumped when a field changes meaning or is removed. */
export const RESULT_SCHEMA_ID = 'floe-result/1';

export type ResultStatus = 'ok' | 'failed' | 'usage-error' | 'partial' | 'busy' | 'cancelled';

export function statusOf(exitCode: number): ResultStatus {
  switch (exitCode) {
    case EXIT.ok:
      return 'ok';
    case EXIT.usage:
      return 'usage-error';
    case EXIT.partial:
      return 'partial';
    case EXIT.busy:
      return 'busy';
    case EXIT.cancelled:
      return 'cancelled';
    default:
      return 'failed';
  }
}

/** Keys whose integer values are ids or sequence numbers: always strings, even when small. */
const ID_KEY = /(snapshot-?id|sequence-?number|snapshotIds|parentId|schemaSnapshot)$/i;

/** Plain JSON for a result: bigint → decimal string, bytes → hex, ids → strings, undefined dropped. */
export function toResultJson(value: unknown, key = ''): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') {
    if (ID_KEY.test(key) && Number.isInteger(value)) return String(value);
    return Number.isFinite(value) ? value : String(value);
  }
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : toResultJson(v, key)));
  if (value instanceof Map) return toResultJson(Object.fromEntries(value), key);
  if (value instanceof Set) return toResultJson([...value], key);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined || typeof v === 'function') continue;
    out[k] = toResultJson(v, k);
  }
  return out;
}

export interface ResultDocument {
  schemaVersion: typeof RESULT_SCHEMA_ID;
  command: string;
  exitCode: number;
  status: ResultStatus;
  [field: string]: unknown;
}

const ENVELOPE_KEYS = ['schemaVersion', 'command', 'exitCode', 'status'] as const;

/** One result document: the envelope, then the command's own fields. */
export function resultDocument(
  command: string,
  exitCode: ExitCode | number,
  body: Record<string, unknown>,
): ResultDocument {
  const fields = toResultJson(body) as Record<string, unknown>;
  for (const k of ENVELOPE_KEYS)
    if (k in fields) throw new Error(`result field "${k}" of ${command} collides with the envelope`);
  return { schemaVersion: RESULT_SCHEMA_ID, command, exitCode, status: statusOf(exitCode), ...fields };
}

/** The document for a command that ended with an error (printed by main.ts in `--json` mode). */
export function errorDocument(command: string, exitCode: number, err: unknown): ResultDocument {
  const e = err as { kind?: string; message?: string; name?: string; context?: Record<string, unknown> };
  const cancelled = e?.kind === 'Cancelled' || e?.context?.cancelled === true || e?.name === 'AbortError';
  const kind = cancelled ? 'Cancelled' : typeof e?.kind === 'string' ? e.kind : 'Internal';
  const message = err instanceof Error ? err.message : typeof e?.message === 'string' ? e.message : String(err);
  const { reported: _reported, ...context } = e?.context ?? {};
  return resultDocument(command, exitCode, {
    error: { kind, message, ...(Object.keys(context).length ? { context } : {}) },
  });
}
