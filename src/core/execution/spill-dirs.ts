/**
 * The sort's temporary spill directories (`<spill-dir>/floe-sort-XXXXXX`) and their owners. A directory
 * holds `owner.json`, the process that made it (util/process-identity.ts); a directory whose owner is
 * certainly gone from this host (killed before it could clean up) is removed by the next sort. Directories
 * of live processes, of other hosts (a shared spill volume) or without an owner file are left alone.
 */
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { currentProcessIdentity, processLiveness, type ProcessIdentity } from '../../../util/process-identity.js';

export const SPILL_DIR_PREFIX = 'floe-sort-';
const OWNER_FILE = 'owner.json';

export async function writeSpillOwner(dir: string): Promise<void> {
  await writeFile(join(dir, OWNER_FILE), `${JSON.stringify(currentProcessIdentity())}\n`);
}

const swept = new Set<string>();

/**
 * Removes the spill directories under `base` whose owner process is gone; once per process and `base`.
 * Returns what was removed. Never throws: a directory that cannot be read or removed stays.
 */
export async function removeDeadSpillDirs(base: string): Promise<{ dir: string; why: string }[]> {
  if (swept.has(base)) return [];
  swept.add(base);
  let names: string[];
  try {
    names = (await readdir(base)).filter((n) => n.startsWith(SPILL_DIR_PREFIX));
  } catch {
    return [];
  }
  const removed: { dir: string; why: string }[] = [];
  for (const n of names) {
    const dir = join(base, n);
    let owner: Partial<ProcessIdentity>;
    try {
      owner = JSON.parse(await readFile(join(dir, OWNER_FILE), 'utf8')) as Partial<ProcessIdentity>;
    } catch {
      continue; // no owner recorded (or being created right now): not ours to judge
    }
    const state = processLiveness(owner);
    if (state.alive) continue;
    try {
      await rm(dir, { recursive: true, force: true });
      removed.push({ dir, why: state.why });
    } catch {
      // left for the next start
    }
  }
  return removed;
}

/** Tests: forget which directories were already swept. */
export function resetSpillSweep(): void {
  swept.clear();
}
