/**
 * Shared pieces of the catalog commit tests: a SQLite catalog file laid out as Java's JdbcCatalog /
 * PyIceberg's SqlCatalog create it, and rewrite requests over the synthetic tables of test/iceberg-write.
 */
import Database from 'better-sqlite3';
import { copyFileSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { NewContentFile, RewriteCommitRequest } from '../../../connectors/iceberg/commit-rewrite.js';
import { buildTable, type SyntheticFile } from '../iceberg-write/synthetic-table.js';

export function tmp(prefix = 'floe-catalog-commit-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/** The iceberg_tables layout of PyIceberg 0.12's SqlCatalog (= JdbcCatalog's V1 schema). */
export function createCatalogDb(file: string): void {
  const db = new Database(file);
  db.exec(`CREATE TABLE iceberg_tables (
    catalog_name VARCHAR(255) NOT NULL,
    table_namespace VARCHAR(255) NOT NULL,
    table_name VARCHAR(255) NOT NULL,
    metadata_location VARCHAR(1000),
    previous_metadata_location VARCHAR(1000),
    iceberg_type VARCHAR(5),
    PRIMARY KEY (catalog_name, table_namespace, table_name))`);
  db.close();
}

export interface CatalogRow {
  catalog_name: string;
  table_namespace: string;
  table_name: string;
  metadata_location: string | null;
  previous_metadata_location: string | null;
}

export function insertRow(file: string, row: CatalogRow): void {
  const db = new Database(file);
  db.prepare(
    `INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, previous_metadata_location, iceberg_type)
     VALUES (?, ?, ?, ?, ?, 'TABLE')`,
  ).run(row.catalog_name, row.table_namespace, row.table_name, row.metadata_location, row.previous_metadata_location);
  db.close();
}

export function rowsOf(file: string): CatalogRow[] {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare(
        `SELECT catalog_name, table_namespace, table_name, metadata_location, previous_metadata_location FROM iceberg_tables ORDER BY catalog_name`,
      )
      .all() as CatalogRow[];
  } finally {
    db.close();
  }
}

export const data = (loc: string, n: number, region: string): SyntheticFile[] =>
  Array.from({ length: n }, (_, i) => ({
    path: `${loc}/data/${region}-${i}.parquet`,
    region,
    rows: 10 + i,
    size: 1000 + i,
  }));

export function output(loc: string, name: string, rows: number, from: string): NewContentFile {
  return {
    content: 0,
    path: `${loc}/data/${name}.parquet`,
    format: 'PARQUET',
    recordCount: rows,
    sizeBytes: 5000,
    specId: 0,
    partitionOf: from,
  };
}

/** The first snapshot id buildTable writes (beyond 2^53 on purpose). */
export const FIRST_SNAPSHOT = 9_007_199_254_740_993n;
export const TABLE_UUID = '0f8f2f6e-6a35-4a0c-9a52-2f5f0c3d2a11';

/**
 * A partitioned synthetic table (3 eu + 2 us files) whose metadata is published under a metastore-style
 * name `00007-<uuid>.metadata.json`, as a catalog-managed table's would be. Returns its location and that file.
 */
export async function catalogTable(
  root: string,
): Promise<{ loc: string; metadataFile: string; files: SyntheticFile[] }> {
  const loc0 = path.join(root, 'db', 't');
  const files = [...data(loc0, 3, 'eu'), ...data(loc0, 2, 'us')];
  const loc = await buildTable(root, { partitioned: true, data: files });
  const metadataFile = path.join(loc, 'metadata', '00007-3b7e9c1d-0000-4000-8000-000000000007.metadata.json');
  copyFileSync(path.join(loc, 'metadata', 'v1.metadata.json'), metadataFile);
  return { loc, metadataFile, files };
}

/** Replace one region's files by one output file. */
export function regionRewrite(loc: string, files: SyntheticFile[], region: string): RewriteCommitRequest {
  const inputs = files.filter((f) => f.region === region);
  const rows = inputs.reduce((n, f) => n + f.rows, 0);
  return {
    baseSnapshotId: FIRST_SNAPSHOT,
    groups: [
      {
        id: region,
        replacedDataFiles: inputs.map((f) => f.path),
        removedDeleteFiles: [],
        addedDataFiles: [output(loc, `${region}-compacted`, rows, inputs[0]!.path)],
        addedDeleteFiles: [],
      },
    ],
  };
}

export function metadataFiles(loc: string): string[] {
  return readdirSync(path.join(loc, 'metadata'))
    .filter((n) => n.endsWith('.metadata.json'))
    .sort();
}
