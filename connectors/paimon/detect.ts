/** Whether a location holds a Paimon table (a `schema/` directory with `schema-N` files); never throws. */
import type { FileIO } from '../storage/file-io.js';
import { isPaimonTable } from './table.js';

export async function detectPaimon(ref: string, files: FileIO): Promise<boolean> {
  try {
    return await isPaimonTable(ref, files);
  } catch {
    return false;
  }
}
