/**
 * A table whose current metadata holds a very long snapshot history (issue 29.3): a copy of a small real
 * table whose `vN+1.metadata.json` adds `extra` synthetic ancestors (appends that all list the oldest
 * real snapshot's manifest list) before its real snapshots. Written as a stream, so generating 200,000
 * snapshots (≈93 MiB) takes a few seconds and little memory. Used by the huge-metadata benchmark and by
 * test/connectors/iceberg/long-history.test.ts (through test/support/huge-metadata.ts).
 */
import { copyFileSync, cpSync, createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const FIXTURE = 'impala/iceberg_v2_positional_not_all_data_files_have_delete_files';

export async function tableWithLongHistory(
  extra: number,
  /** The shared fixtures directory (../shared/fixtures beside the repository). */
  fixtures: string,
  /** Give every synthetic snapshot its own copy of the manifest list (`copy-<i>-<name>`), as real histories have. */
  o: { distinctLists?: boolean } = {},
): Promise<{ dir: string; metadataFile: string; bytes: number; cleanup: () => void }> {
  const base = mkdtempSync(path.join(tmpdir(), 'floe-long-history-'));
  const dir = path.join(base, 't');
  cpSync(path.join(fixtures, FIXTURE), dir, { recursive: true });
  const md = path.join(dir, 'metadata');
  const version = Number(readFileSync(path.join(md, 'version-hint.txt'), 'utf8').trim());
  const doc = JSON.parse(
    readFileSync(path.join(md, `v${version}.metadata.json`), 'utf8').replace(
      /("(?:snapshot-id|parent-snapshot-id|current-snapshot-id)"\s*:\s*)(\d+)/g,
      '$1"$2"',
    ),
  ) as Record<string, unknown>;
  const snaps = doc.snapshots as Record<string, unknown>[];
  const first = snaps[0]!;
  const firstTs = Number(first['timestamp-ms']);
  const idOf = (i: number) => String(1_000_000_000_000 + i);
  const list = String(first['manifest-list']);
  const listName = list.slice(list.lastIndexOf('/') + 1);
  const copyOfList = (i: number) => {
    const name = `copy-${i}-${listName}`;
    copyFileSync(path.join(md, listName), path.join(md, name));
    return `${list.slice(0, list.lastIndexOf('/') + 1)}${name}`;
  };
  const file = path.join(md, `v${version + 1}.metadata.json`);
  const out = createWriteStream(file);
  const write = (s: string) =>
    out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r()));
  // ids are written as JSON numbers (they were strings above only to survive JSON.parse exactly)
  const unquoteIds = (s: string) =>
    s.replace(/("(?:snapshot-id|parent-snapshot-id|current-snapshot-id)":)"(\d+)"/g, '$1$2');
  const { snapshots: _s, 'snapshot-log': log, 'metadata-log': _m, ...head } = doc;
  await write(unquoteIds(JSON.stringify(head)).slice(0, -1));
  await write(',"snapshots":[');
  for (let i = 0; i < extra; i++) {
    const s = {
      'sequence-number': 1,
      'snapshot-id': idOf(i),
      ...(i > 0 ? { 'parent-snapshot-id': idOf(i - 1) } : {}),
      'timestamp-ms': firstTs - (extra - i) * 1000,
      summary: { operation: 'append', 'added-data-files': '1', 'added-records': '1', 'total-records': '1' },
      'manifest-list': o.distinctLists ? copyOfList(i) : first['manifest-list'],
      'schema-id': 0,
    };
    await write(`${i ? ',' : ''}${unquoteIds(JSON.stringify(s))}`);
  }
  for (const [i, s] of snaps.entries()) {
    const linked = i === 0 && extra > 0 ? { ...s, 'parent-snapshot-id': idOf(extra - 1) } : s;
    await write(`${extra || i ? ',' : ''}${unquoteIds(JSON.stringify(linked))}`);
  }
  await write('],"snapshot-log":[');
  for (let i = 0; i < extra; i++)
    await write(`${i ? ',' : ''}{"timestamp-ms":${firstTs - (extra - i) * 1000},"snapshot-id":${idOf(i)}}`);
  for (const [i, e] of (log as Record<string, unknown>[]).entries())
    await write(`${extra || i ? ',' : ''}${unquoteIds(JSON.stringify(e))}`);
  await write('],"metadata-log":[]}');
  await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
  writeFileSync(path.join(md, 'version-hint.txt'), String(version + 1));
  return {
    dir,
    metadataFile: file,
    bytes: out.bytesWritten,
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}
