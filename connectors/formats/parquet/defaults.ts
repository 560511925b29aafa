/** Iceberg JSON single-value defaults (spec Appendix D, JSON form) → the exact JS values buildData takes. */
import { floorDiv } from '../../../util/bigint-math.js';
import { FloeError } from '../../../util/errors.js';
import type { FieldType } from '../../../model/table.js';

const DATE = /^(-?\d{4,})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/;
const TS = /^(-?\d{4,}-\d{2}-\d{2})T(\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:\d{2})?$/;

function daysFromDate(text: string): number {
  const m = DATE.exec(text);
  if (!m) throw new Error(`bad date "${text}"`);
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / 86_400_000;
}

/** Time of day in nanoseconds. */
function nanosFromTime(text: string): bigint {
  const m = TIME.exec(text);
  if (!m) throw new Error(`bad time "${text}"`);
  const frac = BigInt((m[4] ?? '').padEnd(9, '0'));
  return ((BigInt(m[1]!) * 60n + BigInt(m[2]!)) * 60n + BigInt(m[3] ?? '0')) * 1_000_000_000n + frac;
}

function nanosFromTimestamp(text: string): bigint {
  const m = TS.exec(text);
  if (!m) throw new Error(`bad timestamp "${text}"`);
  let nanos = BigInt(daysFromDate(m[1]!)) * 86_400_000_000_000n + nanosFromTime(m[2]!);
  const zone = m[3];
  if (zone && zone !== 'Z') {
    const sign = zone[0] === '-' ? -1n : 1n;
    const minutes = BigInt(Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
    nanos -= sign * minutes * 60_000_000_000n;
  }
  return nanos;
}

function hexToBytes(hex: string): Uint8Array {
  if (!/^([0-9a-fA-F]{2})*$/.test(hex)) throw new Error(`bad hex "${hex}"`);
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function asNumberish(v: unknown): number | bigint | string {
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'string') return v;
  // lossless-json LosslessNumber and similar wrappers
  if (v && typeof v === 'object' && 'value' in v && typeof (v as { value: unknown }).value === 'string')
    return (v as { value: string }).value;
  throw new Error(`expected a number, got ${JSON.stringify(v)}`);
}

/** Converts a JSON default to a value for buildData; struct values come back keyed by child *name*. */
export function valueFromJsonDefault(json: unknown, type: FieldType, where: string): unknown {
  if (json === null || json === undefined) return null;
  try {
    switch (type.kind) {
      case 'struct': {
        const obj = json as Record<string, unknown>;
        const out: Record<string, unknown> = {};
        for (const f of type.fields) {
          const v = obj[String(f.id)] ?? f.initialDefault;
          out[f.name] = valueFromJsonDefault(v, f.type, `${where}.${f.name}`);
        }
        return out;
      }
      case 'list':
      case 'map':
        throw new Error('only null defaults are supported for lists and maps');
      case 'primitive':
        break;
    }
    switch (type.name) {
      case 'boolean':
        if (typeof json !== 'boolean') throw new Error('expected a boolean');
        return json;
      case 'int':
      case 'tinyint':
      case 'smallint':
      case 'date':
        if (type.name === 'date' && typeof json === 'string') return daysFromDate(json);
        return Number(asNumberish(json));
      case 'long':
        return BigInt(asNumberish(json));
      case 'float':
      case 'double':
        return Number(asNumberish(json));
      case 'decimal':
        return String(asNumberish(json));
      case 'time':
        return typeof json === 'string' ? nanosFromTime(json) / 1000n : BigInt(asNumberish(json));
      case 'timestamp':
      case 'timestamptz':
        return typeof json === 'string' ? floorDiv(nanosFromTimestamp(json), 1000n) : BigInt(asNumberish(json));
      case 'timestamp_ns':
      case 'timestamptz_ns':
        return typeof json === 'string' ? nanosFromTimestamp(json) : BigInt(asNumberish(json));
      case 'string':
      case 'uuid':
        if (typeof json !== 'string') throw new Error('expected a string');
        return json;
      case 'fixed':
      case 'binary':
        if (typeof json !== 'string') throw new Error('expected a hex string');
        return hexToBytes(json);
      default:
        throw new Error(`defaults for ${type.name} are not supported`);
    }
  } catch (e) {
    if (e instanceof FloeError) throw e;
    throw new FloeError(
      'InvalidArgument',
      `${where}: bad initial-default ${JSON.stringify(json, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}: ${(e as Error).message}`,
    );
  }
}
