import { defineConfig } from 'vitest/config';

// Three tiers: fast unit tests (test/), the property tests (test/**/*-property.test.ts: generated histories
// checked against a model, slower), and the integration tier (integration/) that runs against a real
// S3-compatible server and the reference engines. `npm test` runs all three; CI runs all three.
export default defineConfig({
  test: {
    // 2 cores: two test files at a time (the integration tier's JVMs and Python processes are heavy)
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*-property.test.ts'],
          // estimates use built-in CPU rates: a cold ~/.cache/floe/cost would make every test process that
          // compacts calibrate first (test/cost/calibration.test.ts measures it on purpose)
          env: { FLOE_COST_CALIBRATION: 'off' },
          testTimeout: 30_000,
          hookTimeout: 60_000,
          pool: 'forks',
          globalSetup: ['test/support/require-fixtures.ts'],
        },
      },
      {
        test: {
          name: 'property',
          include: ['test/**/*-property.test.ts'],
          env: { FLOE_COST_CALIBRATION: 'off' },
          testTimeout: 120_000,
          hookTimeout: 60_000,
          pool: 'forks',
          globalSetup: ['test/support/require-fixtures.ts'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['integration/**/*.test.ts'],
          env: { FLOE_COST_CALIBRATION: 'off' }, // as the unit tier; CPU estimates are the bench's (bench/estimate.ts)
          globalSetup: ['test/support/require-fixtures.ts', 'integration/support/s3-server.ts'],
          testTimeout: 300_000,
          hookTimeout: 600_000,
          pool: 'forks',
        },
      },
    ],
  },
});
