import { describe, expect, it } from 'vitest';
import * as path from 'node:path';
import { formatDecimal as decimalToString } from '../../../model/arrow/decimal.js';
import { decodeSingleValue, displayValue, fromJsonDefault } from '../../../connectors/iceberg/values.js';
import type { FieldType } from '../../../model/index.js';
import { openIcebergTable } from '../../../connectors/iceberg/table.js';
import { loadTableModel } from '../../../connectors/iceberg/table.js';
import { fixtures } from './helpers.js';

const P = (name: string, extra: Record<string, number> = {}): FieldType =>
  ({ kind: 'primitive', name, ...extra }) as FieldType;
const hex = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, 'hex'));

describe('single-value binary serialisation (spec App. D)', () => {
  it('int/date little-endian 4 bytes, long/timestamp 8 bytes', () => {
    expect(decodeSingleValue(P('int'), hex('01000000'))).toBe(1);
    expect(decodeSingleValue(P('int'), hex('feffffff'))).toBe(-2);
    expect(decodeSingleValue(P('date'), hex('e7490000'))).toBe(0x49e7);
    expect(decodeSingleValue(P('long'), hex('0000000000000080'))).toBe(-(2n ** 63n));
    const micros = BigInt(Date.UTC(2020, 0, 1, 8)) * 1000n;
    const b = Buffer.alloc(8);
    b.writeBigInt64LE(micros);
    expect(decodeSingleValue(P('timestamptz'), b)).toBe(micros);
  });
  it('float/double little-endian, boolean one byte, string UTF-8', () => {
    const f = Buffer.alloc(4);
    f.writeFloatLE(1.5);
    expect(decodeSingleValue(P('float'), f)).toBe(1.5);
    const d = Buffer.alloc(8);
    d.writeDoubleLE(-0.25);
    expect(decodeSingleValue(P('double'), d)).toBe(-0.25);
    expect(decodeSingleValue(P('boolean'), hex('00'))).toBe(false);
    expect(decodeSingleValue(P('boolean'), hex('01'))).toBe(true);
    expect(decodeSingleValue(P('string'), Buffer.from('héllo'))).toBe('héllo');
  });
  it('decimal is big-endian two’s complement unscaled', () => {
    expect(decodeSingleValue(P('decimal', { precision: 9, scale: 2 }), hex('ff85'))).toBe('-1.23');
    expect(decodeSingleValue(P('decimal', { precision: 9, scale: 2 }), hex('3039'))).toBe('123.45');
    expect(decodeSingleValue(P('decimal', { precision: 38, scale: 0 }), hex('00ffffffffffffffffff'))).toBe(
      (2n ** 72n - 1n).toString(),
    );
    expect(decimalToString(5n, 3)).toBe('0.005');
  });
  it('uuid 16 bytes big-endian; binary/fixed raw', () => {
    expect(decodeSingleValue(P('uuid'), hex('f79c3e098b884b2f9f5c2e6a7d1b2c3d'))).toBe(
      'f79c3e09-8b88-4b2f-9f5c-2e6a7d1b2c3d',
    );
    expect(decodeSingleValue(P('binary'), hex('00ff'))).toEqual(hex('00ff'));
  });
});

describe('JSON defaults and display', () => {
  const field = (type: FieldType) => ({ id: 1, name: 'x', required: false, type });
  it('parses v3 JSON single values', () => {
    expect(fromJsonDefault(field(P('int')), -1)).toBe(-1);
    expect(fromJsonDefault(field(P('long')), 34)).toBe(34n);
    expect(fromJsonDefault(field(P('date')), '1970-01-11')).toBe(10);
    expect(fromJsonDefault(field(P('timestamp')), '1970-01-01T00:00:01.000002')).toBe(1_000_002n);
    expect(fromJsonDefault(field(P('binary')), '00ff')).toEqual(hex('00ff'));
  });
  it('formats dates and timestamps as ISO text', () => {
    expect(displayValue(P('date'), 0)).toBe('1970-01-01');
    expect(displayValue(P('timestamptz'), -1n)).toBe('1969-12-31T23:59:59.999999+00:00');
    expect(displayValue(P('timestamp_ns'), 1_500_000_000n)).toBe('1970-01-01T00:00:01.500000000');
  });
});

describe('manifest entries of a real v1 table', () => {
  it('decodes partition tuples and bounds per type', async () => {
    const t = path.join(fixtures, 'impala/iceberg_partitioned');
    const table = await openIcebergTable(t);
    const model = await loadTableModel(table);
    expect(model.dataFiles).toHaveLength(20);
    const f = model.dataFiles.find((x) => x.partition[1] === 'view')!;
    // hour(event_time) = hours since epoch; the views happened at 2020-01-01 08:00 UTC.
    expect(f.partition[0]).toBe(Date.UTC(2020, 0, 1, 8) / 3_600_000);
    expect(f.stats?.lowerBounds?.get(3)).toBe('view');
    expect(f.stats?.lowerBounds?.get(4)).toBe(BigInt(Date.UTC(2020, 0, 1, 8)) * 1000n);
    expect(f.stats?.valueCounts?.get(1)).toBe(1n);
    // v1: every sequence number reads as 0
    expect(f.dataSequenceNumber).toBe(0n);
    expect(f.snapshotId).toBe(8270633197658268308n);
  });
});
