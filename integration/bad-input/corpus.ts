/**
 * The bad-input corpus: ≥ 200 corrupted copies of real tables (fixtures written by Spark, Flink, Impala and
 * Java Paimon). Each case names one file of a table, how it is broken, and the floe commands that read it —
 * every one of those must refuse (exit 1 or 2, a message naming the file) and write nothing.
 *
 * Targets are found from the pristine fixture (current metadata, its manifest list, manifests, data files,
 * Puffin files; Paimon's latest snapshot, its manifest lists and manifests), so the corpus follows the
 * fixtures rather than hard-coding their file names.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readAvroContainer } from '../../connectors/formats/avro.js';
import { parseJsonLossless } from '../../util/json.js';
import {
  avroBadCodec,
  avroBadHeaderSync,
  avroBadMagic,
  avroBadTrailingSync,
  avroCorruptBlock,
  avroHeaderOnlyPlusGarbage,
  avroHugeBlockCount,
  avroNotAvro,
  dropTail,
  editAvroRecords,
  editJson,
  editText,
  flipBytes,
  patchAt,
  replaceWith,
  truncateBytes,
  truncateTo,
  type Json,
  type Mutation,
} from './mutate.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const fixturesRoot = path.resolve(repoRoot, '../shared/fixtures');

export type Command = 'inspect' | 'scan' | 'compact' | 'expire';
export const ALL: Command[] = ['inspect', 'scan', 'compact', 'expire'];

export interface BadCase {
  id: string;
  /** Fixture table, relative to the fixtures root. */
  table: string;
  format: 'iceberg' | 'paimon';
  /** The corrupted file, relative to the table directory. */
  file: string;
  mutate: Mutation;
  /** Commands that read the file and so must refuse. */
  commands: Command[];
  /** What the message must contain (default: the file's name). */
  names?: string[];
  /**
   * 'refuse' (default): exit 1 or 2 and nothing written. 'task-fails' (compact on a corrupt data or delete
   * file): the task reading it fails, naming it; the command exits 1 when nothing else was done, or 3 when
   * other tasks committed (partial progress, by design) — the broken file itself is never touched.
   */
  expect?: 'refuse' | 'task-fails';
}

/** The floe arguments for one command on a table directory. */
export function argsFor(cmd: Command, dir: string): string[] {
  switch (cmd) {
    case 'inspect':
      return ['inspect', dir, '--json'];
    case 'scan':
      return ['scan', dir];
    case 'compact':
      return ['compact', dir];
    case 'expire':
      return ['expire', dir, '--retain-last', '1', '--older-than', '1s'];
  }
}

// ------------------------------------------------------------------------------------------ targets

interface IcebergTargets {
  metadata: string;
  manifestList: string;
  manifests: { data: string[]; deletes: string[] };
  dataFiles: string[];
  puffin: string[];
  /** data file → the manifest that lists it */
  manifestOf: Map<string, string>;
  formatVersion: number;
  snapshots: number;
}

const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);

function icebergTargets(table: string): IcebergTargets {
  const dir = path.join(fixturesRoot, table);
  const versions = readdirSync(path.join(dir, 'metadata'))
    .map((n) => /^v(\d+)\.metadata\.json$/.exec(n))
    .filter((m): m is RegExpExecArray => !!m)
    .sort((a, b) => Number(b[1]) - Number(a[1]));
  const metadata = `metadata/${versions[0]![0]}`;
  const md = parseJsonLossless(readFileSync(path.join(dir, metadata), 'utf8')) as Json;
  const current = (md.snapshots as Json[]).find((s) => s['snapshot-id'] === md['current-snapshot-id'])!;
  const manifestList = `metadata/${base(String(current['manifest-list']))}`;
  const list = readAvroContainer<Json>(readFileSync(path.join(dir, manifestList)), manifestList).records;
  const manifests = { data: [] as string[], deletes: [] as string[] };
  const dataFiles: string[] = [];
  const puffin: string[] = [];
  const manifestOf = new Map<string, string>();
  for (const m of list) {
    const rel = `metadata/${base(String(m.manifest_path))}`;
    (Number(m.content ?? 0) === 1 ? manifests.deletes : manifests.data).push(rel);
    for (const e of readAvroContainer<Json>(readFileSync(path.join(dir, rel)), rel).records) {
      if (Number(e.status) === 2) continue;
      const f = String((e.data_file as Json).file_path);
      const loc = String(md.location).replace(/\/+$/, '');
      const local = f.startsWith(`${loc}/`) ? f.slice(loc.length + 1) : `data/${base(f)}`;
      if (!existsSync(path.join(dir, local))) continue;
      if (f.endsWith('.puffin')) {
        if (!puffin.includes(local)) puffin.push(local);
      } else if (Number((e.data_file as Json).content ?? 0) === 0) {
        dataFiles.push(local);
        manifestOf.set(local, rel);
      }
    }
  }
  return {
    metadata,
    manifestList,
    manifests,
    dataFiles,
    puffin,
    manifestOf,
    formatVersion: Number(md['format-version']),
    snapshots: (md.snapshots as Json[]).length,
  };
}

interface PaimonTargets {
  snapshot: string;
  baseList: string;
  deltaList: string;
  manifests: string[];
  dataFiles: string[];
  fixedBuckets: boolean;
}

function paimonTargets(table: string): PaimonTargets {
  const dir = path.join(fixturesRoot, table);
  const latest = readFileSync(path.join(dir, 'snapshot/LATEST'), 'utf8').trim();
  const snapshot = `snapshot/snapshot-${latest}`;
  const s = parseJsonLossless(readFileSync(path.join(dir, snapshot), 'utf8')) as Json;
  const baseList = `manifest/${String(s.baseManifestList)}`;
  const deltaList = `manifest/${String(s.deltaManifestList)}`;
  const manifests: string[] = [];
  for (const l of [baseList, deltaList]) {
    for (const m of readAvroContainer<Json>(readFileSync(path.join(dir, l)), l).records) {
      const rel = `manifest/${String(m._FILE_NAME)}`;
      if (!manifests.includes(rel)) manifests.push(rel);
    }
  }
  // live data files: added and not deleted again by a later entry (manifests are in commit order)
  const live = new Set<string>();
  for (const m of manifests) {
    for (const e of readAvroContainer<Json>(readFileSync(path.join(dir, m)), m).records) {
      const name = String((e._FILE as Json)._FILE_NAME);
      if (Number(e._KIND) === 0) live.add(name);
      else live.delete(name);
    }
  }
  const dataFiles = [...live].map((n) => findFile(dir, n)).filter((x): x is string => x !== undefined);
  const first = readAvroContainer<Json>(readFileSync(path.join(dir, manifests[0]!)), manifests[0]!).records[0]!;
  const fixedBuckets = Number(first._TOTAL_BUCKETS ?? 0) > 0;
  return { snapshot, baseList, deltaList, manifests, dataFiles, fixedBuckets };
}

function findFile(dir: string, name: string, rel = ''): string | undefined {
  for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) {
      const hit = findFile(dir, name, r);
      if (hit) return hit;
    } else if (e.name === name) return r;
  }
  return undefined;
}

// ------------------------------------------------------------------------------------------ mutations

type Doc = Json;
const snaps = (d: Doc) => d.snapshots as Doc[];
const currentSnap = (d: Doc) => snaps(d).find((s) => s['snapshot-id'] === d['current-snapshot-id'])!;
const setMain = (d: Doc, id: unknown) => {
  const refs = (d.refs as Record<string, Doc> | undefined) ?? {};
  refs.main = { ...(refs.main ?? { type: 'branch' }), 'snapshot-id': id };
  d.refs = refs;
};

/** Metadata edits that break an invariant or a type; `v` filters by format version. */
function metadataEdits(t: IcebergTargets): [string, Mutation][] {
  const v = t.formatVersion;
  const out: [string, Mutation][] = [
    ['last-sequence-number=-7', editJson((d) => void (d['last-sequence-number'] = -7))],
    [
      'current-snapshot-missing',
      editJson((d) => {
        d['current-snapshot-id'] = 42;
        setMain(d, 42);
      }),
    ],
    ['main-ref-missing', editJson((d) => setMain(d, 4242))],
    [
      'tag-to-missing-snapshot',
      editJson((d) => void (d.refs = { ...((d.refs as Doc) ?? {}), 'old-tag': { type: 'tag', 'snapshot-id': 777 } })),
    ],
    [
      'ref-bad-type',
      editJson(
        (d) =>
          void (d.refs = { ...((d.refs as Doc) ?? {}), x: { type: 'twig', 'snapshot-id': d['current-snapshot-id'] } }),
      ),
    ],
    ['duplicate-snapshot-id', editJson((d) => void snaps(d).push({ ...currentSnap(d) }))],
    ['current-schema-id=99', editJson((d) => void (d['current-schema-id'] = 99))],
    ['default-spec-id=99', editJson((d) => void (d['default-spec-id'] = 99))],
    [
      'default-sort-order-id=99',
      editJson((d) => {
        d['sort-orders'] = d['sort-orders'] ?? [{ 'order-id': 0, fields: [] }];
        d['default-sort-order-id'] = 99;
      }),
    ],
    ['last-column-id=0', editJson((d) => void (d['last-column-id'] = 0))],
    ['last-column-id-missing', editJson((d) => void delete d['last-column-id'])],
    ['format-version=4', editJson((d) => void (d['format-version'] = 4))],
    ['format-version=0', editJson((d) => void (d['format-version'] = 0))],
    ['format-version=2.5', editText((s) => s.replace(/"format-version"\s*:\s*\d/, '"format-version" : 2.5'))],
    ['format-version-string', editJson((d) => void (d['format-version'] = String(d['format-version'])))],
    ['format-version-missing', editJson((d) => void delete d['format-version'])],
    ['location-missing', editJson((d) => void delete d.location)],
    ['location-number', editJson((d) => void (d.location = 5))],
    [
      'no-schemas',
      editJson((d) => {
        delete d.schemas;
        delete d.schema;
      }),
    ],
    [
      'schemas-string',
      editJson((d) => {
        d.schemas = 'x';
        delete d.schema;
      }),
    ],
    [
      'schema-field-without-id',
      editJson((d) => {
        const s = (d.schemas as Doc[] | undefined)?.[0] ?? (d.schema as Doc);
        delete ((s.fields as Doc[])[0] as Doc).id;
      }),
    ],
    [
      'schema-field-unknown-type',
      editJson((d) => {
        for (const s of (d.schemas as Doc[] | undefined) ?? [d.schema as Doc])
          ((s.fields as Doc[])[0] as Doc).type = 'int128';
      }),
    ],
    [
      'field-id-beyond-last-column-id',
      editJson((d) => {
        for (const s of (d.schemas as Doc[] | undefined) ?? [d.schema as Doc])
          (s.fields as Doc[]).push({ id: 9999, name: 'zz', required: false, type: 'int' });
      }),
    ],
    ['snapshots-object', editJson((d) => void (d.snapshots = { a: 1 }))],
    ['snapshot-id-string', editJson((d) => void (currentSnap(d)['snapshot-id'] = 'abc'))],
    ['snapshot-id-missing', editJson((d) => void delete currentSnap(d)['snapshot-id'])],
    [
      'snapshot-id-huge',
      editText((s) => s.replace(/"snapshot-id"\s*:\s*(\d+)/, '"snapshot-id" : 123456789012345678901234567890')),
    ],
    ['snapshot-not-object', editJson((d) => void (snaps(d) as unknown[]).push(7))],
    ['timestamp-string', editJson((d) => void (currentSnap(d)['timestamp-ms'] = 'yesterday'))],
    ['timestamp-1e400', editText((s) => s.replace(/"timestamp-ms"\s*:\s*\d+/, '"timestamp-ms" : 1e400'))],
    ['manifest-list-number', editJson((d) => void (currentSnap(d)['manifest-list'] = 12))],
    ['summary-number', editJson((d) => void (currentSnap(d).summary = 5))],
    ['summary-total-records-negative', editJson((d) => void ((currentSnap(d).summary as Doc)['total-records'] = '-3'))],
    [
      'summary-total-records-beyond-int64',
      editJson((d) => void ((currentSnap(d).summary as Doc)['total-records'] = '18446744073709551616')),
    ],
    [
      'summary-added-files-size-garbage',
      editJson((d) => void ((currentSnap(d).summary as Doc)['added-files-size'] = 'lots')),
    ],
    ['current-snapshot-id-string', editJson((d) => void (d['current-snapshot-id'] = 'x'))],
    [
      'current-snapshot-id-2^64',
      editText((s) => s.replace(/"current-snapshot-id"\s*:\s*\d+/, '"current-snapshot-id" : 18446744073709551616')),
    ],
    ['refs-array', editJson((d) => void (d.refs = [1, 2]))],
    ['partition-specs-number', editJson((d) => void (d['partition-specs'] = 7))],
    [
      'partition-field-without-transform',
      editJson((d) => {
        d['partition-specs'] = [{ 'spec-id': 0, fields: [{ name: 'p', 'source-id': 1, 'field-id': 1000 }] }];
        d['default-spec-id'] = 0;
      }),
    ],
    [
      'duplicate-spec-id',
      editJson((d) => {
        const specs = (d['partition-specs'] as Doc[] | undefined) ?? [{ 'spec-id': 0, fields: [] }];
        d['partition-specs'] = [...specs, { ...specs[0]! }];
      }),
    ],
    [
      'statistics-negative-size',
      editJson((d) => {
        d.statistics = [
          {
            'snapshot-id': d['current-snapshot-id'],
            'statistics-path': 'metadata/x.stats',
            'file-size-in-bytes': -5,
            'file-footer-size-in-bytes': 4,
            'blob-metadata': [],
          },
        ];
      }),
    ],
    [
      'statistics-without-path',
      editJson((d) => void (d.statistics = [{ 'snapshot-id': d['current-snapshot-id'], 'file-size-in-bytes': 5 }])),
    ],
  ];
  if (v >= 2) {
    out.push(
      ['last-sequence-number=0-below-snapshots', editJson((d) => void (d['last-sequence-number'] = 0))],
      [
        'last-sequence-number-beyond-int64',
        editText((s) => s.replace(/"last-sequence-number"\s*:\s*\d+/, '"last-sequence-number" : 99999999999999999999')),
      ],
      ['snapshot-sequence-number=-1', editJson((d) => void (currentSnap(d)['sequence-number'] = -1))],
      ['snapshot-sequence-number-1.5', editJson((d) => void (currentSnap(d)['sequence-number'] = 1.5))],
      ['last-sequence-number-missing', editJson((d) => void delete d['last-sequence-number'])],
      ['manifest-list-missing', editJson((d) => void delete currentSnap(d)['manifest-list'])],
      [
        'main-and-current-disagree',
        editJson((d) => {
          const other = snaps(d).find((s) => s['snapshot-id'] !== d['current-snapshot-id']);
          setMain(d, other ? other['snapshot-id'] : 31337);
        }),
      ],
      [
        'last-partition-id-below-fields',
        editJson((d) => {
          d['partition-specs'] = [
            ...((d['partition-specs'] as Doc[]) ?? []),
            { 'spec-id': 77, fields: [{ name: 'b', transform: 'bucket[4]', 'source-id': 1, 'field-id': 1500 }] },
          ];
        }),
      ],
    );
    if (t.snapshots >= 2) {
      out.push([
        'parent-newer-than-child',
        editJson((d) => {
          const cur = currentSnap(d);
          const parent = snaps(d).find((s) => s['snapshot-id'] === cur['parent-snapshot-id']);
          if (!parent) throw new Error('fixture has no parent of the current snapshot');
          parent['sequence-number'] = cur['sequence-number'];
          cur['sequence-number'] = 0;
        }),
      ]);
    }
  }
  if (v >= 3) {
    out.push(
      ['next-row-id=-1', editJson((d) => void (d['next-row-id'] = -1))],
      ['next-row-id-missing', editJson((d) => void delete d['next-row-id'])],
      ['next-row-id-below-snapshot-range', editJson((d) => void (d['next-row-id'] = 0))],
      ['added-rows-negative', editJson((d) => void (currentSnap(d)['added-rows'] = -4))],
    );
  }
  return out;
}

/** Byte-level damage to a JSON file (metadata or Paimon snapshot). */
function jsonByteEdits(seed: number): [string, Mutation][] {
  return [
    ['truncated-10%', truncateTo(0.1)],
    ['truncated-50%', truncateTo(0.5)],
    ['truncated-last-byte', dropTail(2)],
    ['empty', replaceWith('')],
    ['binary-garbage', replaceWith(Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe]))],
    ['gzip-magic-garbage', replaceWith(Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x01, 0x02, 0x03]))],
    ['json-array', replaceWith('[1, 2, 3]')],
    ['json-null', replaceWith('null')],
    [`flipped-bytes-seed${seed}`, flipBytes(seed, 3, 0.05, 0.6)],
  ];
}

/** Damage to an Avro container (Iceberg manifest list / manifest, Paimon manifest list / manifest). */
function avroEdits(seed: number): [string, Mutation][] {
  return [
    ['truncated-50%', truncateTo(0.5)],
    ['truncated-to-magic', truncateBytes(4)],
    ['truncated-last-16', dropTail(16)],
    ['empty', replaceWith('')],
    ['bad-magic', avroBadMagic],
    ['parquet-magic', avroNotAvro],
    ['bad-trailing-sync', avroBadTrailingSync],
    ['bad-header-sync', avroBadHeaderSync],
    ['header-then-garbage', avroHeaderOnlyPlusGarbage],
    [`corrupt-block-seed${seed}`, avroCorruptBlock(seed)],
    ['huge-block-count', avroHugeBlockCount],
    ['bad-codec', avroBadCodec],
  ];
}

/** Sets a field the record really has (an edit of a field the schema lacks would change nothing). */
function setField(r: Json, key: string, value: unknown): void {
  if (!(key in r)) throw new Error(`record has no field ${key}`);
  r[key] = value;
}

const setDataFile = (edit: (df: Json, e: Json) => void) =>
  editAvroRecords((rs) => {
    for (const r of rs) edit(r.data_file as Json, r);
  });

function icebergManifestRecordEdits(v: number): [string, Mutation][] {
  const out: [string, Mutation][] = [
    ['record-count-2^62', setDataFile((df) => setField(df, 'record_count', 1n << 62n))],
    ['record-count-negative', setDataFile((df) => setField(df, 'record_count', -1n))],
    ['file-size-negative', setDataFile((df) => setField(df, 'file_size_in_bytes', -10n))],
    ['status-7', editAvroRecords((rs) => setField(rs[0]!, 'status', 7))],
    ['file-format-lance', setDataFile((df) => setField(df, 'file_format', 'LANCE'))],
  ];
  if (v >= 2) {
    out.push(
      ['content-9', setDataFile((df) => setField(df, 'content', 9))],
      ['sequence-number-negative', editAvroRecords((rs) => setField(rs[0]!, 'sequence_number', -3n))],
      ['sequence-number-beyond-table', editAvroRecords((rs) => setField(rs[0]!, 'sequence_number', 1n << 40n))],
    );
  }
  return out;
}

function icebergListRecordEdits(v: number): [string, Mutation][] {
  const out: [string, Mutation][] = [
    ['manifest-length-negative', editAvroRecords((rs) => setField(rs[0]!, 'manifest_length', -1n))],
    [
      'added-files-count-negative',
      editAvroRecords((rs) =>
        setField(rs[0]!, 'added_files_count' in rs[0]! ? 'added_files_count' : 'added_data_files_count', -2),
      ),
    ],
    [
      'manifest-path-missing-file',
      editAvroRecords((rs) => setField(rs[0]!, 'manifest_path', `${String(rs[0]!.manifest_path)}.gone`)),
    ],
  ];
  if (v >= 2) {
    out.push(
      ['manifest-sequence-negative', editAvroRecords((rs) => setField(rs[0]!, 'sequence_number', -1n))],
      ['manifest-sequence-beyond-table', editAvroRecords((rs) => setField(rs[0]!, 'sequence_number', 1n << 40n))],
      ['content-5', editAvroRecords((rs) => setField(rs[0]!, 'content', 5))],
    );
  }
  return out;
}

/** A manifest where the list is expected (valid Avro, wrong schema). */
const manifestInsteadOfList =
  (manifestRel: string, tableDir: () => string): Mutation =>
  (file) => {
    replaceWith(readFileSync(path.join(tableDir(), manifestRel)))(file);
  };

function parquetEdits(seed: number): [string, Mutation][] {
  return [
    ['truncated-50%', truncateTo(0.5)],
    ['truncated-to-8', truncateBytes(8)],
    ['empty', replaceWith('')],
    ['bad-trailing-magic', patchAt(-4, [0x50, 0x41, 0x52, 0x30])],
    ['bad-leading-magic', patchAt(0, [0x50, 0x41, 0x52, 0x30])],
    ['footer-length-huge', patchAt(-8, [0xff, 0xff, 0xff, 0x7f])],
    ['footer-length-zero', patchAt(-8, [0, 0, 0, 0])],
    [
      'footer-length-off-by-one',
      (file) => {
        const b = Buffer.from(readFileSync(file));
        b.writeInt32LE(b.readInt32LE(b.length - 8) + 1, b.length - 8);
        replaceWith(b)(file);
      },
    ],
    [
      'footer-garbage',
      (file) => {
        const b = Buffer.from(readFileSync(file));
        const len = b.readInt32LE(b.length - 8);
        b.fill(0xff, b.length - 8 - len, b.length - 8);
        replaceWith(b)(file);
      },
    ],
    [`page-header-flipped-seed${seed}`, patchAt(4, [0xff, 0xff, 0xff, 0xff, 0xff, 0xff])],
    ['text-not-parquet', replaceWith('not parquet at all')],
  ];
}

function puffinEdits(seed: number): [string, Mutation][] {
  return [
    ['bad-leading-magic', patchAt(0, [0x50, 0x46, 0x41, 0x30])],
    ['bad-trailing-magic', patchAt(-4, [0x50, 0x46, 0x41, 0x30])],
    ['footer-length-huge', patchAt(-12, [0xff, 0xff, 0xff, 0x7f])],
    [
      'footer-not-json',
      (file) => {
        const b = Buffer.from(readFileSync(file));
        const len = b.readInt32LE(b.length - 12);
        b.fill(0x7b, b.length - 12 - len, b.length - 12);
        replaceWith(b)(file);
      },
    ],
    [
      'blob-offset-out-of-range',
      (file) => {
        const b = Buffer.from(readFileSync(file));
        const len = b.readInt32LE(b.length - 12);
        const start = b.length - 12 - len;
        const footer = b
          .subarray(start, b.length - 12)
          .toString('utf8')
          .replace(/"offset"\s*:\s*\d+/g, (m) => m.replace(/\d+$/, '99999999'));
        const nb = Buffer.from(footer, 'utf8');
        const out = Buffer.concat([b.subarray(0, start), nb, Buffer.alloc(12)]);
        out.writeInt32LE(nb.length, out.length - 12);
        out.writeUInt32LE(b.readUInt32LE(b.length - 8), out.length - 8);
        Buffer.from([0x50, 0x46, 0x41, 0x31]).copy(out, out.length - 4);
        replaceWith(out)(file);
      },
    ],
    ['truncated-50%', truncateTo(0.5)],
    [`blob-bytes-flipped-seed${seed}`, flipBytes(seed, 3, 0.02, 0.3)],
    ['zeroed', (file) => replaceWith(Buffer.alloc(readFileSync(file).length))(file)],
  ];
}

function paimonSnapshotEdits(): [string, Mutation][] {
  return [
    ['id-mismatch', editJson((d) => void (d.id = Number(d.id) + 100))],
    ['id-negative', editJson((d) => void (d.id = -1))],
    ['id-huge', editText((s) => s.replace(/"id"\s*:\s*\d+/, '"id" : 1180591620717411303424'))],
    ['schemaId-99', editJson((d) => void (d.schemaId = 99))],
    ['schemaId-negative', editJson((d) => void (d.schemaId = -1))],
    ['totalRecordCount-negative', editJson((d) => void (d.totalRecordCount = -5))],
    ['changelogRecordCount-negative', editJson((d) => void (d.changelogRecordCount = -1))],
    ['commitIdentifier-missing', editJson((d) => void delete d.commitIdentifier)],
    ['commitIdentifier-string', editJson((d) => void (d.commitIdentifier = 'abc'))],
    ['commitKind-unknown', editJson((d) => void (d.commitKind = 'MERGE'))],
    ['baseManifestList-missing', editJson((d) => void delete d.baseManifestList)],
    ['baseManifestList-empty', editJson((d) => void (d.baseManifestList = ''))],
    ['deltaManifestList-number', editJson((d) => void (d.deltaManifestList = 3))],
    ['baseManifestList-absent-file', editJson((d) => void (d.baseManifestList = 'manifest-list-does-not-exist-0'))],
    ['timeMillis-string', editJson((d) => void (d.timeMillis = 'now'))],
    ['timeMillis-negative', editJson((d) => void (d.timeMillis = -1))],
    ['baseManifestListSize-negative', editJson((d) => void (d.baseManifestListSize = -7))],
  ];
}

const setPaimonFile = (edit: (f: Json, e: Json) => void) =>
  editAvroRecords((rs) => {
    for (const r of rs) edit(r._FILE as Json, r);
  });

function paimonManifestRecordEdits(fixedBuckets: boolean): [string, Mutation][] {
  const out: [string, Mutation][] = [
    ['kind-9', editAvroRecords((rs) => setField(rs[0]!, '_KIND', 9))],
    ['row-count-negative', setPaimonFile((f) => setField(f, '_ROW_COUNT', -1n))],
    ['row-count-2^62', setPaimonFile((f) => setField(f, '_ROW_COUNT', 1n << 62n))],
    ['file-size-negative', setPaimonFile((f) => setField(f, '_FILE_SIZE', -1n))],
    ['level-negative', setPaimonFile((f) => setField(f, '_LEVEL', -1))],
    ['version-7', editAvroRecords((rs) => setField(rs[0]!, '_VERSION', 7))],
    ['file-name-empty', setPaimonFile((f) => setField(f, '_FILE_NAME', ''))],
    ['file-name-with-path', setPaimonFile((f) => setField(f, '_FILE_NAME', `../${String(f._FILE_NAME)}`))],
  ];
  // with a fixed bucket count a bucket beyond it is corrupt (dynamic / unaware tables have no such bound)
  if (fixedBuckets) out.push(['bucket-beyond-total', editAvroRecords((rs) => setField(rs[0]!, '_BUCKET', 1000))]);
  return out;
}

function paimonListRecordEdits(): [string, Mutation][] {
  return [
    ['version-7', editAvroRecords((rs) => setField(rs[0]!, '_VERSION', 7))],
    ['file-name-absent', editAvroRecords((rs) => setField(rs[0]!, '_FILE_NAME', 'manifest-not-there-0'))],
    ['num-added-files-negative', editAvroRecords((rs) => setField(rs[0]!, '_NUM_ADDED_FILES', -3n))],
    ['file-size-negative', editAvroRecords((rs) => setField(rs[0]!, '_FILE_SIZE', -3n))],
  ];
}

// ------------------------------------------------------------------------------------------ the corpus

const ICEBERG_TABLES = [
  'impala/iceberg_v2_delete_equality',
  'icebird/spark_bunnies',
  'impala/iceberg_v3_deletion_vectors',
  'impala/iceberg_partitioned',
];
/**
 * Tables whose default compaction plans a task that reads their first live data file (spark_bunnies is
 * already compacted: its plan is empty, so compact never opens the file and rightly exits 0).
 */
const COMPACTS_FIRST_DATA_FILE = new Set([
  'impala/iceberg_v2_delete_equality',
  'impala/iceberg_v3_deletion_vectors',
  'impala/iceberg_partitioned',
]);
const PAIMON_TABLES = ['paimon-cpp/pk_table_scan_and_read_mor', 'paimon-cpp/append_table_with_alter_table'];

export function buildCorpus(seed = 20261201): BadCase[] {
  const cases: BadCase[] = [];
  let n = 0;
  const add = (c: Omit<BadCase, 'id'> & { what: string }) => {
    const { what, ...rest } = c;
    cases.push({ id: `${c.table} ${c.file} ${what}`, ...rest });
    n++;
  };
  for (const table of ICEBERG_TABLES) {
    const t = icebergTargets(table);
    const seedOf = () => seed + n;
    for (const [what, mutate] of [...metadataEdits(t), ...jsonByteEdits(seedOf())]) {
      add({ table, format: 'iceberg', file: t.metadata, what, mutate, commands: ALL });
    }
    // the current snapshot's manifest list: read by every command (expire must read it before committing)
    const listCmds: Command[] = t.snapshots > 1 ? ALL : ['inspect', 'scan', 'compact'];
    for (const [what, mutate] of [...avroEdits(seedOf()), ...icebergListRecordEdits(t.formatVersion)]) {
      add({ table, format: 'iceberg', file: t.manifestList, what, mutate, commands: listCmds });
    }
    const dataManifest = t.manifests.data[0]!;
    add({
      table,
      format: 'iceberg',
      file: t.manifestList,
      what: 'a manifest instead of the list',
      mutate: manifestInsteadOfList(dataManifest, () => path.join(fixturesRoot, table)),
      commands: listCmds,
    });
    for (const [what, mutate] of [...avroEdits(seedOf() + 1), ...icebergManifestRecordEdits(t.formatVersion)]) {
      add({ table, format: 'iceberg', file: dataManifest, what, mutate, commands: ['inspect', 'scan', 'compact'] });
    }
    if (t.manifests.deletes[0]) {
      for (const [what, mutate] of avroEdits(seedOf() + 2).slice(0, 6)) {
        add({
          table,
          format: 'iceberg',
          file: t.manifests.deletes[0],
          what,
          mutate,
          commands: ['inspect', 'scan', 'compact'],
        });
      }
    }
    // a manifest naming a data file that is not there: the reader names the missing file
    const gone = `${path.basename(t.dataFiles[0]!)}.gone`;
    add({
      table,
      format: 'iceberg',
      file: t.manifestOf.get(t.dataFiles[0]!)!,
      what: 'data file path to a missing file',
      names: [gone],
      commands: ['scan'],
      mutate: setDataFile((df) => {
        if (String(df.file_path).endsWith(`/${path.basename(t.dataFiles[0]!)}`))
          setField(df, 'file_path', `${String(df.file_path)}.gone`);
      }),
    });
    for (const [what, mutate] of parquetEdits(seedOf())) {
      add({ table, format: 'iceberg', file: t.dataFiles[0]!, what, mutate, commands: ['scan'] });
      if (COMPACTS_FIRST_DATA_FILE.has(table)) {
        add({
          table,
          format: 'iceberg',
          file: t.dataFiles[0]!,
          what: `${what} (compact)`,
          mutate,
          commands: ['compact'],
          expect: 'task-fails',
        });
      }
    }
    for (const p of t.puffin) {
      for (const [what, mutate] of puffinEdits(seedOf())) {
        add({ table, format: 'iceberg', file: p, what, mutate, commands: ['scan'] });
        add({
          table,
          format: 'iceberg',
          file: p,
          what: `${what} (compact)`,
          mutate,
          commands: ['compact'],
          expect: 'task-fails',
        });
      }
    }
  }
  for (const table of PAIMON_TABLES) {
    const t = paimonTargets(table);
    const seedOf = () => seed + n;
    for (const [what, mutate] of [...paimonSnapshotEdits(), ...jsonByteEdits(seedOf())]) {
      add({ table, format: 'paimon', file: t.snapshot, what, mutate, commands: ALL });
    }
    for (const [what, mutate] of [...avroEdits(seedOf()), ...paimonListRecordEdits()]) {
      add({ table, format: 'paimon', file: t.baseList, what, mutate, commands: ALL });
    }
    for (const [what, mutate] of [
      ...avroEdits(seedOf() + 1).slice(0, 8),
      ...paimonManifestRecordEdits(t.fixedBuckets),
    ]) {
      add({ table, format: 'paimon', file: t.manifests[0]!, what, mutate, commands: ALL });
    }
    for (const [what, mutate] of parquetEdits(seedOf()).slice(0, 6)) {
      add({ table, format: 'paimon', file: t.dataFiles[0]!, what, mutate, commands: ['scan'] });
    }
  }
  return cases;
}
