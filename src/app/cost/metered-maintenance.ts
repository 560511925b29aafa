/**
 * Metering of a maintenance job (expire, remove-orphans): the report carries its estimate and, unless a dry
 * run, what the run measured. Planning ends at the first delete once the lease is held (a real run) or once the
 * plan is made (a dry run, before sizes are looked up); the job marks those points through its `Meter`.
 */
import type { RequestCounter } from '../../../connectors/storage/request-counter.js';
import type { MaintenanceReport } from '../maintenance-report.js';
import { unknownSizeCount } from '../maintenance-result.js';
import { maintenanceEstimate } from './estimate.js';
import { conditionalProbeDue, leaseFileExists } from './lease-state.js';
import { metered, type CostOptions } from './meter.js';

/** What a metered maintenance job tells its meter while it runs. */
export interface Meter {
  counter: RequestCounter;
  facts: {
    /** Files whose size a real run looks up before deleting them (the CLI's progress). */
    sizingHeads: number;
  };
}

interface MaintenanceMeterOptions extends CostOptions {
  catalog?: string;
  locationMap?: string[];
  lease?: boolean;
  dryRun?: boolean;
}

/** Runs `job` metered (or plainly with `meter: false`) and puts the estimate and measured figures on its report. */
export async function meteredMaintenance(
  ref: string,
  o: MaintenanceMeterOptions,
  job: (meter?: Meter) => Promise<MaintenanceReport>,
): Promise<MaintenanceReport> {
  if (o.meter === false) return job();
  const facts = { sizingHeads: 0 };
  const conditionalProbe = conditionalProbeDue(ref, o);
  const m = await metered(o, (counter) => job({ counter, facts }));
  const report = m.value;
  report.estimate = maintenanceEstimate(report, m.phase, {
    prices: m.prices,
    calibration: m.calibration,
    lease: o.lease !== false,
    catalog: o.catalog !== undefined,
    sizingHeads: facts.sizingHeads,
    conditionalProbe,
    ...(o.dryRun && o.lease !== false ? { leaseExists: await leaseFileExists(ref, o) } : {}),
  });
  if (m.measured) report.measured = m.measured;
  return report;
}

/** Inside the lease, before the job's first delete: a real run's planning ends at that delete. */
export function armAtFirstDelete(meter: Meter | undefined, dryRun: boolean | undefined): void {
  if (meter && !dryRun) meter.counter.armAtFirstWrite('delete');
}

/** The plan is made: a dry run's planning ends here (its size lookups are not the real run's). */
export function planned(
  r: MaintenanceReport,
  o: { progressSink?: unknown },
  meter: Meter | undefined,
): MaintenanceReport {
  if (!meter) return r;
  if (r.dryRun) meter.counter.mark();
  if (o.progressSink) meter.facts.sizingHeads = unknownSizeCount(r);
  return r;
}
