/** Moved to src/app/open-table.ts (temporary re-export while importers move). */
export * from '../app/open-table.js';
