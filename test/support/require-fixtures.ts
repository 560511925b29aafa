/**
 * vitest globalSetup for both tiers: the shared fixtures (real tables written by Spark, Flink, Hive, Impala,
 * PyIceberg, Java Iceberg and Java Paimon) are part of the test suite. Without them a run would quietly
 * skip most read and compaction tests and stay green, so it fails here instead, saying where they come from.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const fixturesRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/fixtures');

export function missingFixturesMessage(root: string): string | undefined {
  if (existsSync(path.join(root, 'MANIFEST.json'))) return undefined;
  return (
    `the shared test fixtures are missing: expected ${root}/MANIFEST.json.\n` +
    `They are real tables written by other engines (origins in shared/fixtures/MANIFEST.md), laid beside the ` +
    `clone as ../shared/fixtures by the workplace; the tests read them in place and never copy them into the repo.`
  );
}

export default function setup(): void {
  const missing = missingFixturesMessage(fixturesRoot);
  if (missing) throw new Error(missing);
}
