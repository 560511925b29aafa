/** Moved to src/app/exit-codes.ts (re-exported for the CLI's modules). */
export * from '../app/exit-codes.js';
