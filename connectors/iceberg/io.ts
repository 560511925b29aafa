/**
 * The file access the Iceberg reader needs: a view of the one FileIO (connectors/storage/file-io.ts), so
 * readers take exactly the capabilities they use and tests can hand in small doubles.
 *
 * Locations are passed as the table metadata spells them; `map` says where the bytes really are (the
 * `--location-map` rules applied to the normalised URI: tables copied out of HDFS/S3, relative paths in
 * DuckDB's test tables …).
 */
import type { FileIO } from '../storage/file-io.js';

export type IcebergIO = Pick<FileIO, 'read' | 'readRange' | 'exists' | 'listNames' | 'map'>;
