/** The 200,000-snapshot table of issue 29.3 (bench/huge-metadata-table.ts), from the shared fixtures. */
import { tableWithLongHistory as generate } from '../../bench/huge-metadata-table.js';
import { fixtures } from '../connectors/iceberg/helpers.js';

export const tableWithLongHistory = (extra: number, o: { distinctLists?: boolean } = {}) =>
  generate(extra, fixtures, o);
