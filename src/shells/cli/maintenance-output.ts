/**
 * Output and exit code of the maintenance commands (expire, remove-orphans, rewrite-manifests): the text
 * report, or one JSON result document (src/app/maintenance-result.ts) with the report's fields and a summary.
 */
import { reportToText, type MaintenanceReport } from '../../app/maintenance-report.js';
import { maintenanceExitCode, maintenanceResult } from '../../app/maintenance-result.js';
import { renderResult, writeStdout } from './result.js';

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
  write(json ? renderResult(maintenanceResult(r)) : reportToText(r));
  return exitCode;
}
