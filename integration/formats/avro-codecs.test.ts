/**
 * Avro containers in every codec floe writes (null, deflate, snappy, zstandard) against an independent
 * implementation, fastavro (snappy/zstd through cramjam) from the oracle venv: fastavro reads what floe
 * writes, and floe reads what fastavro writes, record for record. The codecs are floe's single
 * implementations (connectors/formats/compression.ts: hysnappy, fzstd, @bokuweb/zstd-wasm, zlib).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readAvroContainer, writeAvroContainer } from '../../connectors/formats/avro.js';
import { repoRoot } from '../oracles/index.js';

const python = process.env.FLOE_ORACLE_PYTHON ?? path.join(repoRoot, '.venv/bin/python');
const dir = mkdtempSync(path.join(tmpdir(), 'floe-avro-codecs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const schema = {
  type: 'record',
  name: 'r',
  fields: [
    { name: 'id', type: 'long' },
    { name: 's', type: 'string' },
    { name: 'b', type: ['null', 'bytes'], default: null },
  ],
};
// compressible and not: repeated text, and bytes that vary per row; > 2^53 ids kept exact
const records = Array.from({ length: 4000 }, (_, i) => ({
  id: 9_007_199_254_740_993n + BigInt(i),
  s: `row ${i % 97} ` + 'x'.repeat(i % 300),
  b: i % 5 === 0 ? null : Buffer.from(Array.from({ length: i % 64 }, (_, k) => (i * 31 + k * 7) % 256)),
}));

/** fastavro: `read <file>` prints the records as JSON lines (ids as strings); `write <file> <codec>` re-writes them. */
const SCRIPT = `
import sys, json, fastavro
mode, src = sys.argv[1], sys.argv[2]
with open(src, 'rb') as f:
    reader = fastavro.reader(f)
    rows = list(reader)
    schema = reader.writer_schema
if mode == 'read':
    for r in rows:
        print(json.dumps({'id': str(r['id']), 's': r['s'], 'b': None if r['b'] is None else r['b'].hex()}, separators=(',', ':')))
else:
    with open(sys.argv[3], 'wb') as out:
        fastavro.writer(out, fastavro.parse_schema(schema), rows, codec=sys.argv[4])
`;

function fastavro(...args: string[]): string {
  if (!existsSync(python)) {
    throw new Error(`no oracle Python at ${python}: run scripts/setup-oracles.sh (npm test does) to create the venv`);
  }
  return execFileSync(python, ['-c', SCRIPT, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

const expected = records.map((r) => JSON.stringify({ id: String(r.id), s: r.s, b: r.b ? r.b.toString('hex') : null }));

describe('Avro codecs against fastavro', () => {
  for (const codec of ['null', 'deflate', 'snappy', 'zstandard'] as const) {
    it(`${codec}: fastavro reads floe's container, floe reads fastavro's`, async () => {
      const ours = path.join(dir, `floe-${codec}.avro`);
      writeFileSync(ours, await writeAvroContainer(schema, records, { codec }));
      expect(fastavro('read', ours).trim().split('\n')).toEqual(expected);

      const theirs = path.join(dir, `fastavro-${codec}.avro`);
      fastavro('write', ours, theirs, codec);
      const back = readAvroContainer(readFileSync(theirs), theirs);
      expect(back.codec).toBe(codec);
      expect(
        back.records.map((r) =>
          JSON.stringify({
            id: String(r.id),
            s: r.s,
            b: r.b == null ? null : Buffer.from(r.b as Uint8Array).toString('hex'),
          }),
        ),
      ).toEqual(expected);
    });
  }
});
