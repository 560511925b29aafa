/**
 * Lossless JSON for table metadata: integers beyond 2^53 (snapshot ids, sequence numbers, row ids) are
 * parsed as bigint and written back digit for digit. Safe integers stay numbers so ordinary fields
 * (format-version, schema ids) keep their natural type.
 */
import { parse, stringify, isInteger, isSafeNumber, type LosslessNumber } from 'lossless-json';

function reviveNumber(value: string): number | bigint {
  if (isInteger(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : BigInt(value);
  }
  if (isSafeNumber(value)) return Number(value);
  // A float that does not round-trip exactly: keep the closest double, as every Iceberg reader does.
  return Number(value);
}

/**
 * Parses JSON keeping integers beyond 2^53 exact. The engine's own JSON.parse does the work (a 100 MiB
 * metadata file with 200,000 snapshots parses in a second or two, against most of a minute and twice the
 * memory in a JS parser): integer tokens of 16 digits or more — the only ones that can be unsafe — are
 * first quoted with a NUL-prefixed marker, which a walk over the result turns back into a number or a bigint. Real
 * JSON strings cannot hold a raw NUL; a text that has the `\u0000` escape anywhere takes the JS parser.
 */
export function parseJsonLossless(text: string): unknown {
  return parseJsonLosslessTaking({ text });
}

/**
 * parseJsonLossless of `box.text`, which it takes out of the box: when the box held the only reference, the
 * text is garbage before the engine parses the marked copy (for a 100 MiB document, 100 MiB less at the peak).
 */
export function parseJsonLosslessTaking(box: { text?: string }): unknown {
  let text = box.text ?? '';
  box.text = undefined;
  if (text.includes('\\u0000')) return parse(text, undefined, reviveNumber);
  let marked = markLongIntegers(text);
  if (marked === text) {
    text = '';
    return JSON.parse(marked);
  }
  text = '';
  const value = JSON.parse(marked);
  marked = '';
  return restoreMarked(value);
}

const isMarked = (v: unknown): v is string => typeof v === 'string' && v.charCodeAt(0) === 0;

/**
 * The marked strings of a parsed document turned back into numbers, in place. A walk after the parse, not
 * a JSON.parse reviver: the reviver is called for every value and made the parse of a 93 MiB file ~5× slower.
 */
function restoreMarked(v: unknown): unknown {
  if (isMarked(v)) return reviveNumber(v.slice(1));
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (typeof x === 'object' && x !== null) restoreMarked(x);
      else if (isMarked(x)) v[i] = reviveNumber(x.slice(1));
    }
    return v;
  }
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    const x = o[k];
    if (typeof x === 'object' && x !== null) restoreMarked(x);
    else if (isMarked(x)) o[k] = reviveNumber(x.slice(1));
  }
  return v;
}

/**
 * The index of the quote closing the string that opens at `open` (text.length when unterminated). indexOf
 * jumps between quotes natively; a quote preceded by an odd run of backslashes is escaped.
 */
function endOfString(text: string, open: number): number {
  let from = open + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    if (q < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(q - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return q;
    from = q + 1;
  }
}

/** `text` with every integer token of ≥ 16 digits outside strings written as the string "\u0000<digits>". */
function markLongIntegers(text: string): string {
  const parts: string[] = [];
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = endOfString(text, i);
      continue;
    }
    if (c !== 0x2d && (c < 0x30 || c > 0x39)) continue;
    // a number token: find its end; only plain integers (no fraction or exponent) are candidates
    let j = i + 1;
    while (j < text.length) {
      const d = text.charCodeAt(j);
      if (d < 0x30 || d > 0x39) break;
      j++;
    }
    const next = text.charCodeAt(j);
    const integer = next !== 0x2e && next !== 0x65 && next !== 0x45;
    if (!integer) {
      // the rest of a fraction or exponent is part of this token, not a new one
      while (j < text.length && /[0-9.eE+-]/.test(text[j]!)) j++;
    } else if (j - i - (c === 0x2d ? 1 : 0) >= 16) {
      parts.push(text.slice(last, i), '"\\u0000', text.slice(i, j), '"');
      last = j;
    }
    i = j - 1;
  }
  if (last === 0) return text;
  parts.push(text.slice(last));
  return parts.join('');
}

/** Serialises bigint as an exact JSON integer. */
export function stringifyJsonLossless(value: unknown, indent?: number): string {
  const out = stringify(value, undefined, indent, [
    { test: (v: unknown) => typeof v === 'bigint', stringify: (v: unknown) => (v as bigint).toString() },
    // JSON can say -0; keep the sign that JSON.stringify would drop
    { test: (v: unknown) => Object.is(v, -0), stringify: () => '-0' },
  ]);
  if (out === undefined) throw new Error('value is not serialisable as JSON');
  return out;
}

/** Reads a JSON integer field that may be number or bigint as bigint. */
export function toBigInt(v: unknown, what: string): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
  throw new Error(`${what}: expected an integer, got ${JSON.stringify(v)}`);
}

export type { LosslessNumber };
