/**
 * One maintenance job on one table (`floe serve` schedules it; the bindings call it): the app layer's
 * runMaintenanceJob (src/app/maintenance-job.ts), re-exported for the service's modules.
 */
export * from '../app/maintenance-job.js';
