/**
 * Builds random Iceberg v2 histories in an in-memory object store with floe's manifest writers and the
 * filesystem commit path: appends, row deletes (file removal), compactions (replace), branches, tags and
 * statistics files. Data files are really written (a few bytes), so deletions are observable.
 * Also an independent reachability walk, used by tests to check what expiry / orphan removal deleted.
 */
import { randomUUID } from 'node:crypto';
import { FileIO, MemoryObjectStore } from '../../connectors/storage/index.js';
import { stringifyJsonLossless, toBigInt } from '../../util/json.js';
import { readAvroContainer } from '../../connectors/formats/avro.js';
import {
  STATUS_ADDED,
  STATUS_DELETED,
  STATUS_EXISTING,
  normalizeManifestFile,
  writeManifest,
  writeManifestList,
  type RawManifestEntry,
  type RawManifestFile,
} from '../../connectors/iceberg/write-manifest.js';
import { filesystemOps } from '../../connectors/iceberg/expire-table.js';
import type { RawMetadata } from '../../connectors/iceberg/commit-metadata.js';
import { parseMetadata } from '../../connectors/iceberg/metadata.js';
import { readManifest, readManifestList, allFieldsById } from '../../connectors/iceberg/manifests.js';
import type { TableOperations } from '../../connectors/iceberg/commit-rewrite.js';

export const SCHEMA = {
  type: 'struct',
  'schema-id': 0,
  fields: [{ id: 1, name: 'id', required: true, type: 'long' }],
};

export const TABLE = 's3://bucket/wh/db/t';
export const T0 = 1_700_000_000_000;

export class History {
  readonly store = new MemoryObjectStore('memory://bucket');
  readonly fileIO = new FileIO();
  readonly io: FileIO;
  readonly ops: TableOperations;
  now = T0;
  private nextId = 9_007_199_254_740_993n; // beyond 2^53 on purpose
  private fileNo = 0;

  constructor() {
    this.fileIO.mount('s3://bucket', this.store);
    this.io = this.fileIO;
    this.ops = filesystemOps(this.io, TABLE);
  }

  static async create(props: Record<string, string> = {}): Promise<History> {
    const h = new History();
    const md = {
      'format-version': 2,
      'table-uuid': randomUUID(),
      location: TABLE,
      'last-sequence-number': 0,
      'last-updated-ms': T0,
      'last-column-id': 1,
      'current-schema-id': 0,
      schemas: [SCHEMA],
      'default-spec-id': 0,
      'partition-specs': [{ 'spec-id': 0, fields: [] }],
      'last-partition-id': 999,
      'default-sort-order-id': 0,
      'sort-orders': [{ 'order-id': 0, fields: [] }],
      properties: props,
      'current-snapshot-id': -1,
      refs: {},
      snapshots: [],
      statistics: [],
      'partition-statistics': [],
      'snapshot-log': [],
      'metadata-log': [],
    };
    await h.io.createNew(`${TABLE}/metadata/v1.metadata.json`, Buffer.from(stringifyJsonLossless(md, 2)));
    await h.io.overwrite(`${TABLE}/metadata/version-hint.text`, Buffer.from('1'));
    return h;
  }

  async metadata() {
    const cur = await this.ops.refresh();
    return { ...cur, md: parseMetadata(cur.metadata, cur.location) };
  }

  async headOf(branch: string): Promise<bigint | undefined> {
    const { md } = await this.metadata();
    return md.refs.find((r) => r.name === branch && r.type === 'branch')?.snapshotId;
  }

  private async manifestsOf(meta: RawMetadata, snapshotId: bigint | undefined): Promise<RawManifestFile[]> {
    if (snapshotId === undefined) return [];
    const snap = (meta.snapshots as RawMetadata[]).find((s) => toBigInt(s['snapshot-id'], 'id') === snapshotId)!;
    const list = String(snap['manifest-list']);
    return readAvroContainer(await this.io.read(list), list).records.map((r) => normalizeManifestFile(r));
  }

  /** Live entries of a snapshot with sequence numbers made explicit. */
  async liveEntries(meta: RawMetadata, snapshotId: bigint | undefined): Promise<RawManifestEntry[]> {
    const out: RawManifestEntry[] = [];
    for (const m of await this.manifestsOf(meta, snapshotId)) {
      for (const e of readAvroContainer<RawManifestEntry>(await this.io.read(m.manifest_path), m.manifest_path)
        .records) {
        if (e.status === STATUS_DELETED) continue;
        out.push({
          ...e,
          snapshot_id: e.snapshot_id ?? m.added_snapshot_id,
          sequence_number: e.sequence_number ?? m.sequence_number,
          file_sequence_number: e.file_sequence_number ?? m.sequence_number,
        });
      }
    }
    return out;
  }

  private async newDataFile(): Promise<RawManifestEntry['data_file']> {
    const path = `${TABLE}/data/f-${this.fileNo++}-${randomUUID().slice(0, 8)}.parquet`;
    const bytes = Buffer.from(`data ${path}`);
    await this.io.createNew(path, bytes);
    return {
      content: 0,
      file_path: path,
      file_format: 'PARQUET',
      partition: {},
      record_count: 10n,
      file_size_in_bytes: BigInt(bytes.length),
      sort_order_id: 0,
    };
  }

  private async writeManifestFile(
    snapshotId: bigint,
    seq: bigint,
    entries: RawManifestEntry[],
  ): Promise<RawManifestFile> {
    const out = await writeManifest(
      {
        formatVersion: 2,
        specId: 0,
        specFieldsJson: [],
        partition: [],
        tableSchemaJson: SCHEMA,
        content: 'data',
        entries,
        codec: { codec: 'null' },
      },
      snapshotId,
      seq,
    );
    const path = `${TABLE}/metadata/${randomUUID()}-m0.avro`;
    await this.io.createNew(path, out.bytes);
    return { ...out.summary, manifest_path: path, manifest_length: BigInt(out.bytes.length) };
  }

  /**
   * One commit on `branch`: `append` adds `add` files in a new manifest (keeping the parent's manifests);
   * `delete` removes `remove` files; `replace` removes them and adds `add` files (compaction) — both write one
   * manifest with every surviving entry as EXISTING.
   */
  async commit(
    branch: string,
    op: 'append' | 'delete' | 'replace',
    opts: { add?: number; remove?: number[]; stats?: boolean; timeStep?: number } = {},
  ): Promise<bigint | undefined> {
    const base = await this.ops.refresh();
    const meta = base.metadata;
    const refs = (meta.refs ?? {}) as Record<string, RawMetadata>;
    const parent = refs[branch] ? toBigInt(refs[branch]['snapshot-id'], 'id') : undefined;
    const id = this.nextId;
    this.nextId += 2n;
    const seq = toBigInt(meta['last-sequence-number'], 'seq') + 1n;
    this.now += opts.timeStep ?? 1000;
    let manifests: RawManifestFile[];
    let operation: string = op;
    if (op === 'append') {
      const files = [];
      for (let i = 0; i < (opts.add ?? 1); i++) files.push(await this.newDataFile());
      const m = await this.writeManifestFile(
        id,
        seq,
        files.map((data_file) => ({
          status: STATUS_ADDED,
          snapshot_id: id,
          sequence_number: null,
          file_sequence_number: null,
          data_file,
        })),
      );
      manifests = [m, ...(await this.manifestsOf(meta, parent))];
    } else {
      const live = await this.liveEntries(meta, parent);
      if (live.length === 0) return undefined;
      const removeIdx = new Set((opts.remove ?? [0]).map((i) => i % live.length));
      const entries: RawManifestEntry[] = live.map((e, i) =>
        removeIdx.has(i) ? { ...e, status: STATUS_DELETED, snapshot_id: id } : { ...e, status: STATUS_EXISTING },
      );
      if (op === 'replace') {
        for (let i = 0; i < (opts.add ?? 1); i++) {
          entries.push({
            status: STATUS_ADDED,
            snapshot_id: id,
            sequence_number: null,
            file_sequence_number: null,
            data_file: await this.newDataFile(),
          });
        }
      } else operation = 'delete';
      manifests = [await this.writeManifestFile(id, seq, entries)];
    }
    const listPath = `${TABLE}/metadata/snap-${id}-1-${randomUUID()}.avro`;
    await this.io.createNew(
      listPath,
      await writeManifestList({
        formatVersion: 2,
        snapshotId: id,
        parentSnapshotId: parent,
        sequenceNumber: seq,
        manifests,
        codec: { codec: 'null' },
      }),
    );

    const next: RawMetadata = structuredClone(meta);
    const snap: RawMetadata = {
      'sequence-number': seq,
      'snapshot-id': id,
      'timestamp-ms': this.now,
      summary: { operation },
      'manifest-list': listPath,
      'schema-id': 0,
    };
    if (parent !== undefined) snap['parent-snapshot-id'] = parent;
    next.snapshots = [...(meta.snapshots as RawMetadata[]), snap];
    next['last-sequence-number'] = seq;
    next['last-updated-ms'] = this.now;
    next.refs = { ...refs, [branch]: { ...(refs[branch] ?? {}), 'snapshot-id': id, type: 'branch' } };
    if (branch === 'main') {
      next['current-snapshot-id'] = id;
      next['snapshot-log'] = [...(meta['snapshot-log'] as unknown[]), { 'timestamp-ms': this.now, 'snapshot-id': id }];
    }
    if (opts.stats) {
      const p = `${TABLE}/metadata/${id}-${randomUUID()}.stats`;
      await this.io.createNew(p, Buffer.from('PFA1 stats'));
      next.statistics = [
        ...((meta.statistics as unknown[]) ?? []),
        {
          'snapshot-id': id,
          'statistics-path': p,
          'file-size-in-bytes': 10,
          'file-footer-size-in-bytes': 4,
          'blob-metadata': [],
        },
      ];
    }
    next['metadata-log'] = [
      ...(meta['metadata-log'] as unknown[]),
      { 'timestamp-ms': meta['last-updated-ms'], 'metadata-file': base.location },
    ];
    await this.ops.commit(base, next);
    return id;
  }

  /** Creates or moves a branch/tag to `snapshotId`, with optional retention overrides. */
  async setRef(
    name: string,
    type: 'branch' | 'tag',
    snapshotId: bigint,
    retention: { maxRefAgeMs?: number; maxSnapshotAgeMs?: number; minSnapshotsToKeep?: number } = {},
  ): Promise<void> {
    const base = await this.ops.refresh();
    const next: RawMetadata = structuredClone(base.metadata);
    const ref: RawMetadata = { 'snapshot-id': snapshotId, type };
    if (retention.maxRefAgeMs !== undefined) ref['max-ref-age-ms'] = retention.maxRefAgeMs;
    if (type === 'branch' && retention.maxSnapshotAgeMs !== undefined)
      ref['max-snapshot-age-ms'] = retention.maxSnapshotAgeMs;
    if (type === 'branch' && retention.minSnapshotsToKeep !== undefined)
      ref['min-snapshots-to-keep'] = retention.minSnapshotsToKeep;
    next.refs = { ...((base.metadata.refs ?? {}) as Record<string, unknown>), [name]: ref };
    next['metadata-log'] = [
      ...(base.metadata['metadata-log'] as unknown[]),
      { 'timestamp-ms': base.metadata['last-updated-ms'], 'metadata-file': base.location },
    ];
    await this.ops.commit(base, next);
  }

  /** Every object in the store, as normalised locations. */
  async allFiles(): Promise<Set<string>> {
    const out = new Set<string>();
    for await (const f of this.io.list(TABLE)) out.add(f.location);
    return out;
  }
}

/**
 * Independent reachability: walks the current metadata with the *reader* (connectors/iceberg/manifests.ts),
 * collecting every manifest list, manifest, live content file and statistics file of every snapshot.
 */
export async function reachableFiles(io: FileIO, raw: RawMetadata, location: string): Promise<Set<string>> {
  const md = parseMetadata(raw, location);
  const out = new Set<string>();
  const fields = allFieldsById(md);
  for (const snap of md.snapshots) {
    out.add(io.map(snap.manifestList!));
    for (const mf of await readManifestList(io, md, snap)) {
      out.add(io.map(mf.path));
      for (const e of await readManifest(io, mf, { md, fieldsById: fields }))
        if (e.status !== 'DELETED') out.add(io.map(e.file.path));
    }
  }
  for (const s of md.statistics) out.add(io.map(s.path));
  return out;
}
