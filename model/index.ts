export * from './table.js';
export * from './run-figures.js';
