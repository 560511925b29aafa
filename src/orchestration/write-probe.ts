/**
 * Before a job reads its inputs: can it write where its outputs and its commit go? A read-only table
 * directory or a bucket without write permission must fail at the first write, not after every input was
 * read and rewritten. The probe creates and removes one empty hidden object per directory. Its name carries
 * the store's temporary marker (`.floe-tmp-`), so readers never list it and remove-orphans collects it, past
 * the age window, if a crash lands between the two.
 */
import { randomUUID } from 'node:crypto';
import { FloeError, isFloeError } from '../../util/errors.js';
import type { CommitIO } from '../../connectors/iceberg/commit-rewrite.js';

export async function probeWritable(out: CommitIO, dirs: readonly string[], table: string): Promise<void> {
  for (const dir of [...new Set(dirs.map((d) => d.replace(/\/+$/, '')))]) {
    const probe = `${dir}/.write-probe.floe-tmp-${randomUUID()}`;
    try {
      await out.createNew(probe, new Uint8Array(0));
    } catch (e) {
      const detail = e instanceof Error ? e.message : String(e);
      throw new FloeError(
        isFloeError(e) && e.kind !== 'Internal' ? e.kind : 'AccessDenied',
        `cannot write to ${dir} (table ${table}): ${detail}; nothing was written`,
        {
          context: { file: dir, table },
          cause: e,
        },
      );
    }
    await out.remove(probe).catch(() => undefined);
  }
}
