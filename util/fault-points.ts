/**
 * Named kill points for crash tests: `FLOE_FAULT_KILL_AT=<point>` (read once, at the first call) makes the
 * process SIGKILL itself the first time it reaches that point — no timing, no cleanup handlers, exactly
 * what a crash or an OOM kill leaves behind. Unset (always, outside tests) it costs one comparison.
 *
 * Points (see FAULT_POINTS): data written, manifests written, before and after the commit write, a sort's
 * first spilled run.
 */
export const FAULT_POINTS = [
  'iceberg.data.after-first-file',
  'iceberg.commit.after-manifests',
  'iceberg.commit.before-publish',
  'iceberg.commit.after-publish',
  'iceberg.expire.before-cleanup',
  'sort.spill.after-first-run',
  'paimon.data.after-first-file',
  'paimon.commit.after-manifests',
  'paimon.commit.before-publish',
  'paimon.commit.after-publish',
] as const;

export type FaultPoint = (typeof FAULT_POINTS)[number];

let armed: string | undefined | null = null;

export function faultPoint(name: FaultPoint): void {
  if (armed === null) {
    armed = process.env.FLOE_FAULT_KILL_AT || undefined;
    if (armed !== undefined && !(FAULT_POINTS as readonly string[]).includes(armed)) {
      process.stderr.write(
        `floe: FLOE_FAULT_KILL_AT=${armed} names no kill point (known: ${FAULT_POINTS.join(', ')})\n`,
      );
    }
  }
  if (armed !== name) return;
  process.stderr.write(`floe: FLOE_FAULT_KILL_AT=${name}: killing the process\n`);
  process.kill(process.pid, 'SIGKILL');
}
