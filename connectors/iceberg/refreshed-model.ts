/**
 * The table model as the catalog has it now — after a commit, say: its metadata refreshed through the
 * table operations and its live files loaded again.
 */
import type { TableModel } from '../../model/index.js';
import type { TableOperations } from './commit-rewrite.js';
import { parseMetadata } from './metadata.js';
import { loadTableModel, type IcebergTable } from './table.js';

export async function loadRefreshedModel(
  table: IcebergTable,
  ops: Pick<TableOperations, 'refresh'>,
): Promise<TableModel> {
  const now = await ops.refresh();
  return loadTableModel({
    ...table,
    metadata: parseMetadata(now.metadata, now.location),
    metadataLocation: now.location,
  });
}
