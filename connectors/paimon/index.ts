/** Apache Paimon adapter: read side (table layout, manifests, BinaryRow, LSM view, merge-on-read scan). */
export { isPaimonTable, loadPaimonTable, openPaimonTable, toTableModel } from './table.js';
export type { PaimonTable, PaimonFile, OpenOptions } from './table.js';
export { scanPaimon } from './scan.js';
export type { ScanOptions, PaimonRow } from './scan.js';
export type { PaimonIO } from './io.js';
export { decodeBinaryRow, decodeSerializedRow, encodeBinaryRow, encodeSerializedRow } from './binary-row.js';
export type { PaimonType, PaimonField } from './types.js';
export type { PaimonSchema, PaimonSnapshot } from './metadata.js';
export type { DataFileMeta, ManifestEntry, ManifestFileMeta, IndexManifestEntry } from './manifest.js';
