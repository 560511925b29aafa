import path from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readAvroContainer } from '../../../connectors/formats/avro.js';
import { bigintToMinimalBigEndian as bigIntToBigEndian } from '../../../model/arrow/decimal.js';
import {
  decodeBinaryRow,
  decodeSerializedRow,
  encodeBinaryRow,
  encodeSerializedRow,
  nullBitsSizeInBytes,
} from '../../../connectors/paimon/binary-row.js';
import { parseAtomicType, type PaimonType } from '../../../connectors/paimon/types.js';
import { isFloeError } from '../../../util/errors.js';

const T = (s: string): PaimonType => parseAtomicType(s, 'test');
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const fixtures = path.resolve(repoRoot, '../shared/fixtures');

describe('BinaryRow layout', () => {
  it('null bit region includes the 8 header bits and is word aligned', () => {
    expect(nullBitsSizeInBytes(0)).toBe(8);
    expect(nullBitsSizeInBytes(56)).toBe(8);
    expect(nullBitsSizeInBytes(57)).toBe(16);
    expect(nullBitsSizeInBytes(120)).toBe(16);
    expect(nullBitsSizeInBytes(121)).toBe(24);
  });

  it('decodes the fixture key bytes [arity 2]["Alice" inline][INT 1] by hand', () => {
    // pk_09 manifest _MIN_KEY: 4-byte BE arity, 8-byte header, slot 0 = "Alice" + 0x85 mark, slot 1 = int 1
    const bytes = Uint8Array.from([
      0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 65, 108, 105, 99, 101, 0, 0, 0x85, 1, 0, 0, 0, 0, 0, 0, 0,
    ]);
    expect(decodeSerializedRow(bytes, [T('STRING NOT NULL'), T('INT NOT NULL')], 'k')).toEqual(['Alice', 1]);
    expect(encodeSerializedRow([T('STRING NOT NULL'), T('INT NOT NULL')], ['Alice', 1])).toEqual(bytes);
  });

  it('writes a long string to the variable part with (offset << 32) | length, padded to 8', () => {
    const row = encodeBinaryRow([T('STRING')], ['0123456789']);
    // header 8 + one slot 8 = 16; data at offset 16, 10 bytes padded to 16
    expect(row.length).toBe(32);
    const v = new DataView(row.buffer);
    expect(v.getUint32(8, true)).toBe(10); // length (low word)
    expect(v.getUint32(12, true)).toBe(16); // offset (high word)
    expect(Buffer.from(row.subarray(16, 26)).toString()).toBe('0123456789');
    expect([...row.subarray(26)]).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('sets the null bit at i + 8 and zeroes the slot', () => {
    const row = encodeBinaryRow([T('INT'), T('INT'), T('BIGINT')], [7, null, null]);
    expect(row[1]).toBe(0b110); // fields 1 and 2 → bits 9 and 10 → byte 1 bits 1, 2
    expect(decodeBinaryRow(row, [T('INT'), T('INT'), T('BIGINT')], 'r').values).toEqual([7, null, null]);
  });

  it('encodes compact decimals as the unscaled long and big ones as BigInteger bytes in 16 reserved bytes', () => {
    const compact = encodeBinaryRow([T('DECIMAL(10, 2)')], ['-12.34']);
    expect(new DataView(compact.buffer).getBigInt64(8, true)).toBe(-1234n);
    const big = encodeBinaryRow([T('DECIMAL(38, 2)')], ['1.28']);
    // 128 needs two bytes in two's complement: 0x00 0x80
    expect(big.length).toBe(16 + 16);
    const v = new DataView(big.buffer);
    expect(v.getUint32(8, true)).toBe(2);
    expect(v.getUint32(12, true)).toBe(16);
    expect([...big.subarray(16, 18)]).toEqual([0x00, 0x80]);
    expect(decodeBinaryRow(big, [T('DECIMAL(38, 2)')], 'r').values).toEqual(['1.28']);
    // a null non-compact decimal still reserves its 16 bytes, as Java does
    const nul = encodeBinaryRow([T('DECIMAL(38, 2)')], [null]);
    expect(nul.length).toBe(32);
    expect(new DataView(nul.buffer).getUint32(12, true)).toBe(16);
  });

  it('BigInteger.toByteArray equivalents', () => {
    expect([...bigIntToBigEndian(0n)]).toEqual([0]);
    expect([...bigIntToBigEndian(127n)]).toEqual([127]);
    expect([...bigIntToBigEndian(128n)]).toEqual([0, 128]);
    expect([...bigIntToBigEndian(-1n)]).toEqual([255]);
    expect([...bigIntToBigEndian(-129n)]).toEqual([255, 127]);
  });

  it('timestamps: compact keeps millis in the slot, non-compact puts millis in the variable part and nanos-of-milli in the slot', () => {
    const ts3 = encodeBinaryRow([T('TIMESTAMP(3)')], [1_700_000_000_123_000n]); // micros
    expect(new DataView(ts3.buffer).getBigInt64(8, true)).toBe(1_700_000_000_123n);
    const ts9 = encodeBinaryRow([T('TIMESTAMP(9)')], [1_700_000_000_123_456_789n]); // nanos
    const v = new DataView(ts9.buffer);
    expect(v.getUint32(8, true)).toBe(456_789); // nano of milli
    expect(v.getUint32(12, true)).toBe(16); // offset
    expect(v.getBigInt64(16, true)).toBe(1_700_000_000_123n);
    expect(decodeBinaryRow(ts9, [T('TIMESTAMP(9)')], 'r').values).toEqual([1_700_000_000_123_456_789n]);
    // before 1970: floor division keeps nano-of-milli non-negative
    const neg = encodeBinaryRow([T('TIMESTAMP(6)')], [-1n]);
    expect(decodeBinaryRow(neg, [T('TIMESTAMP(6)')], 'r').values).toEqual([-1n]);
  });

  it('round-trips every atomic type', () => {
    const types = [
      'BOOLEAN',
      'TINYINT',
      'SMALLINT',
      'INT',
      'BIGINT',
      'FLOAT',
      'DOUBLE',
      'STRING',
      'STRING',
      'BYTES',
      'BYTES',
      'DECIMAL(10, 2)',
      'DECIMAL(30, 5)',
      'DATE',
      'TIME',
      'TIMESTAMP(3)',
      'TIMESTAMP(6)',
      'TIMESTAMP(9)',
      'TIMESTAMP(3) WITH LOCAL TIME ZONE',
      'CHAR(3)',
      'INT',
    ].map(T);
    const values = [
      true,
      -5,
      -300,
      100000,
      2n ** 40n,
      1.5,
      2.25,
      'abc',
      'a longer string ✓',
      Uint8Array.from([1, 2, 3]),
      Uint8Array.from([0, 1, 2, 3, 4, 5, 6, 7, 8]),
      '12.34',
      '-1234567890123456789012.34567',
      19000,
      3_600_000,
      1_700_000_000_123_000n,
      1_700_000_000_123_456n,
      1_700_000_000_123_456_789n,
      1_000n,
      'xyz',
      null,
    ];
    const bytes = encodeSerializedRow(types, values);
    expect(decodeSerializedRow(bytes, types, 'r')).toEqual(values);
  });

  it('round-trips random rows (property)', () => {
    const types = [T('INT'), T('BIGINT'), T('STRING'), T('DOUBLE'), T('DECIMAL(20, 3)')];
    fc.assert(
      fc.property(
        fc.option(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })),
        fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })),
        fc.option(fc.string({ unit: 'grapheme', maxLength: 30 })),
        fc.option(fc.double({ noNaN: true })),
        fc.option(fc.bigInt({ min: -(10n ** 19n), max: 10n ** 19n })),
        (a, b, c, d, e) => {
          const dec =
            e === null
              ? null
              : (e < 0n ? '-' : '') +
                ((e < 0n ? -e : e) / 1000n).toString() +
                '.' +
                ((e < 0n ? -e : e) % 1000n).toString().padStart(3, '0');
          const values = [a, b, c, d, dec];
          const out = decodeSerializedRow(encodeSerializedRow(types, values), types, 'r');
          expect(out).toEqual(values.map((v, i) => (i === 3 && Object.is(v, -0) ? -0 : v)));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses a row whose arity does not match the types, naming the context', () => {
    const bytes = encodeSerializedRow([T('INT')], [1]);
    let err: unknown;
    try {
      decodeSerializedRow(bytes, [T('INT'), T('INT')], 'manifest-x');
    } catch (e) {
      err = e;
    }
    expect(isFloeError(err, 'Corrupt')).toBe(true);
    expect((err as Error).message).toContain('manifest-x');
  });

  it('refuses variable data pointing outside the row', () => {
    const row = encodeBinaryRow([T('STRING')], ['0123456789']);
    new DataView(row.buffer).setUint32(12, 1000, true);
    expect(() => decodeBinaryRow(row, [T('STRING')], 'bad')).toThrow(/outside the row/);
  });
});

describe('BinaryRow against Java-written manifests', () => {
  it('re-encodes every partition and key of pk_09 byte for byte', () => {
    const dir = path.join(fixtures, 'paimon-cpp/pk_09/manifest');
    const keyTypes = [T('STRING NOT NULL'), T('INT NOT NULL')];
    const partTypes = [T('INT NOT NULL')];
    let checked = 0;
    const names = [
      'manifest-8cf79434-32e4-4029-bf8e-befe856d268f-0',
      'manifest-8cf79434-32e4-4029-bf8e-befe856d268f-7',
    ];
    for (const name of names) {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- untyped Avro records, checked field by field
      type Rec = Record<string, any>;
      const c = readAvroContainer<Rec>(readFileSync(path.join(dir, name)), name);
      for (const r of c.records) {
        const part = decodeSerializedRow(r._PARTITION, partTypes, name);
        expect([10, 20]).toContain(part[0]);
        expect(encodeSerializedRow(partTypes, part)).toEqual(new Uint8Array(r._PARTITION));
        for (const k of [r._FILE._MIN_KEY, r._FILE._MAX_KEY]) {
          const key = decodeSerializedRow(k, keyTypes, name);
          expect(typeof key[0]).toBe('string');
          expect(encodeSerializedRow(keyTypes, key)).toEqual(new Uint8Array(k));
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(4);
  });
});
