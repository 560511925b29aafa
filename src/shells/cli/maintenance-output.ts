/**
 * Output and exit code of the maintenance commands (expire, remove-orphans, rewrite-manifests): the text
 * report, or one JSON result document (src/app/maintenance-result.ts) with the report's fields and a summary.
 */
import { reportToText, type MaintenanceReport } from '../../app/maintenance-report.js';
import { maintenanceExitCode, maintenanceResult } from '../../app/maintenance-result.js';
import { renderResult, writeStdout } from './result.js';
import { estimateLines } from '../../app/cost/text.js';

export {
  maintenanceExitCode,
  maintenanceResultBody,
  maintenanceResult,
  fillUnknownSizes,
  sized,
} from '../../app/maintenance-result.js';

export function printMaintenance(
  r: MaintenanceReport,
  json: boolean | undefined,
  write: (t: string) => void = writeStdout,
): number {
  const exitCode = maintenanceExitCode(r);
  if (json) write(renderResult(maintenanceResult(r)));
  else {
    // a dry run says what the real run will cost; a real run what it cost
    const cost = r.dryRun ? estimateLines(r.estimate) : estimateLines(r.estimate, r.measured).slice(-1);
    const text = reportToText(r);
    write(cost.length ? `${text.replace(/\n*$/, '\n')}${cost.join('\n')}\n` : text);
  }
  return exitCode;
}
