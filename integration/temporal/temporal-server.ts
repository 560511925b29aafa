/**
 * The Temporal dev server for the integration/temporal tier: the Temporal CLI that scripts/setup-temporal.sh
 * builds from the Go module proxy (cached under ~/.cache/floe), started by TestWorkflowEnvironment.createLocal
 * as an `existing-path` executable on 127.0.0.1 — never the SDK's default, which downloads a binary.
 *
 * FLOE_SKIP_TEMPORAL=1 skips the tier with a printed SKIPPED line (machines where the CLI cannot be built);
 * without it a missing or unbuildable CLI fails the tier with the reason.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { repoRoot } from '../oracles/index.js';

export const skipTemporal = process.env.FLOE_SKIP_TEMPORAL === '1';
if (skipTemporal) {
  console.warn(
    'SKIPPED: integration/temporal (FLOE_SKIP_TEMPORAL=1): the Temporal binding was NOT tested against a Temporal server; run `bash scripts/setup-temporal.sh` and unset FLOE_SKIP_TEMPORAL to test it',
  );
}

/** The CLI binary, built (or found cached) by scripts/setup-temporal.sh. Throws with the script's output. */
export function temporalCli(): string {
  const r = spawnSync('bash', [path.join(repoRoot, 'scripts/setup-temporal.sh')], {
    encoding: 'utf8',
    cwd: repoRoot,
    timeout: 40 * 60_000,
  });
  const lines = (r.stdout ?? '').trim().split('\n');
  if (r.status !== 0 || !lines.at(-1)) {
    throw new Error(
      `the Temporal CLI could not be built (scripts/setup-temporal.sh exit ${r.status ?? r.signal}), so the Temporal tier cannot run. ` +
        `Build it once with \`bash scripts/setup-temporal.sh\` (Go >= 1.23, Go module proxy access), or point FLOE_TEMPORAL_CLI at a temporal binary; ` +
        `FLOE_SKIP_TEMPORAL=1 skips the tier.\n${r.stderr ?? ''}${r.error ? String(r.error) : ''}`,
    );
  }
  return lines.at(-1)!;
}

export async function startTemporal(): Promise<TestWorkflowEnvironment> {
  const bin = temporalCli();
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: bin },
      ip: '127.0.0.1',
      ui: false,
      log: { format: 'pretty', level: 'error' },
    },
  });
}
