import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadServiceConfig, parseServiceConfig } from '../../../src/shells/service/config.js';
import { FloeError } from '../../../util/errors.js';

const dir = mkdtempSync(path.join(tmpdir(), 'floe-service-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const table = { location: '/w/orders', jobs: { compact: 'every 30m' } };

async function errorOf(raw: unknown): Promise<FloeError> {
  try {
    await parseServiceConfig(raw, 'floe.yaml', dir);
  } catch (e) {
    expect(e).toBeInstanceOf(FloeError);
    expect((e as FloeError).kind).toBe('InvalidArgument');
    return e as FloeError;
  }
  throw new Error('expected the config to be rejected');
}

describe('service config validation', () => {
  it.each([
    ['missing state', { tables: [table] }, /^floe\.yaml: state: is required/],
    ['no tables', { stateDir: 's', tables: [] }, /tables: must be a non-empty list/],
    [
      'short API token',
      { stateDir: 's', http: { token: 'abc' }, tables: [table] },
      /http\.token: must be at least 16 characters/,
    ],
    [
      'bad webhook',
      { stateDir: 's', webhook: 'ftp://x', tables: [table] },
      /webhook\.url: "ftp:\/\/x" is not an http\(s\) URL/,
    ],
    [
      'catalog without target',
      { stateDir: 's', catalogs: [{ name: 'c' }] },
      /catalogs\[0\]: give catalog .* or warehouse/,
    ],
    [
      'bad catalog kind',
      { stateDir: 's', catalogs: [{ name: 'c', catalog: 'hive:x' }] },
      /catalogs\[0\]\.catalog: "hive:x" must be sql:/,
    ],
    [
      'duplicate catalog names',
      {
        stateDir: 's',
        catalogs: [
          { name: 'c', warehouse: '/w' },
          { name: 'c', warehouse: '/v' },
        ],
      },
      /catalogs\[1\]\.name: "c" is used by another catalog/,
    ],
    ['dot-only name', { stateDir: 's', tables: [{ ...table, name: '..' }] }, /tables\[0\]\.name: "\.\." may only hold/],
    [
      'bad job timeout',
      { stateDir: 's', tables: [{ ...table, jobTimeout: 'soon' }] },
      /tables\[0\]\.jobTimeout: must be a duration/,
    ],
    [
      'unknown top-level key',
      { stateDir: 's', tables: [table], concurency: 2 },
      /concurency: unknown key \(expected one of: state, stateDir, concurrency/,
    ],
    [
      'concurrency 0',
      { stateDir: 's', concurrency: 0, tables: [table] },
      /concurrency: must be an integer ≥ 1, got number 0/,
    ],
    [
      'bad time zone',
      { stateDir: 's', timezone: 'Mars/Base', tables: [table] },
      /timezone: "Mars\/Base" is not an IANA time zone/,
    ],
    [
      'backoff max below initial',
      { stateDir: 's', backoff: { initial: '1h', max: '1m' }, tables: [table] },
      /backoff\.max: must not be shorter than backoff\.initial/,
    ],
    [
      'bad duration',
      { stateDir: 's', shutdownTimeout: 'soon', tables: [table] },
      /shutdownTimeout: must be a duration/,
    ],
    [
      'location and id',
      { stateDir: 's', tables: [{ ...table, id: 'db.t', catalog: 'sql:c.db' }] },
      /tables\[0\]: give exactly one of location .* or id/,
    ],
    [
      'id without catalog',
      { stateDir: 's', tables: [{ id: 'db.t', jobs: table.jobs }] },
      /tables\[0\]\.catalog: is required with id/,
    ],
    [
      'bad catalog',
      { stateDir: 's', tables: [{ id: 'db.t', catalog: 'hive:x', jobs: table.jobs }] },
      /tables\[0\]\.catalog: "hive:x" must be sql:/,
    ],
    [
      'duplicate names',
      { stateDir: 's', tables: [table, { ...table, location: '/other/orders' }] },
      /tables\[1\]\.name: "orders" is used by another table/,
    ],
    [
      'unknown job',
      { stateDir: 's', tables: [{ ...table, jobs: { vacuum: 'daily' } }] },
      /tables\[0\]\.jobs\.vacuum: unknown key \(expected one of: compact, expire, remove-orphans\)/,
    ],
    [
      'unknown job option',
      { stateDir: 's', tables: [{ ...table, jobs: { compact: { schedule: 'daily', evry: 1 } } }] },
      /tables\[0\]\.jobs\.compact\.evry: unknown key/,
    ],
    [
      'option of another job',
      { stateDir: 's', tables: [{ ...table, jobs: { compact: { schedule: 'daily', retainLast: 2 } } }] },
      /tables\[0\]\.jobs\.compact\.retainLast: unknown key/,
    ],
    [
      'no schedule',
      { stateDir: 's', tables: [{ ...table, jobs: { expire: { olderThan: '5d' } } }] },
      /tables\[0\]\.jobs\.expire\.schedule: is required/,
    ],
    [
      'bad interval',
      { stateDir: 's', tables: [{ ...table, jobs: { compact: 'every 5x' } }] },
      /tables\[0\]\.jobs\.compact\.schedule: "every 5x" is not a schedule/,
    ],
    [
      'bad cron',
      { stateDir: 's', tables: [{ ...table, jobs: { compact: '61 * * * *' } }] },
      /tables\[0\]\.jobs\.compact\.schedule: "61 \* \* \* \*" is not a valid cron expression/,
    ],
    [
      'bad strategy',
      { stateDir: 's', tables: [{ ...table, jobs: { compact: { schedule: 'daily', strategy: 'zorder' } } }] },
      /jobs\.compact\.strategy: must be tiered or binpack/,
    ],
    [
      'bad retainLast',
      { stateDir: 's', tables: [{ ...table, jobs: { expire: { schedule: 'daily', retainLast: 0 } } }] },
      /jobs\.expire\.retainLast: must be an integer ≥ 1/,
    ],
    [
      'bad olderThan',
      { stateDir: 's', tables: [{ ...table, jobs: { expire: { schedule: 'daily', olderThan: 'last week' } } }] },
      /jobs\.expire\.olderThan: "last week" is not a duration/,
    ],
    [
      'orphan window < 24h',
      { stateDir: 's', tables: [{ ...table, jobs: { 'remove-orphans': { schedule: 'weekly', olderThan: '1h' } } }] },
      /jobs\.remove-orphans\.olderThan: "1h" is shorter than 24h; set force: true/,
    ],
    [
      'fixed orphan cutoff',
      {
        stateDir: 's',
        tables: [{ ...table, jobs: { 'remove-orphans': { schedule: 'weekly', olderThan: '2024-01-01' } } }],
      },
      /jobs\.remove-orphans\.olderThan: must be a duration/,
    ],
    [
      'property of the wrong type',
      { stateDir: 's', tables: [{ ...table, properties: { 'self-optimizing.filter': { a: 1 } } }] },
      /tables\[0\]\.properties\.self-optimizing\.filter: must be a string, number or boolean/,
    ],
    [
      'every job switched off',
      { stateDir: 's', tables: [{ ...table, jobs: { compact: false } }] },
      /tables\[0\]\.jobs: no job is enabled/,
    ],
    [
      'bad location map',
      { stateDir: 's', tables: [{ ...table, locationMap: ['s3://a'] }] },
      /tables\[0\]\.locationMap\[0\]: "s3:\/\/a" must be FROM=TO/,
    ],
    ['bad name', { stateDir: 's', tables: [{ ...table, name: 'a/b' }] }, /tables\[0\]\.name: "a\/b" may only hold/],
  ])('%s', async (_label, raw, message) => {
    expect((await errorOf(raw)).message).toMatch(message);
  });

  it('names the file when it is not YAML/JSON or does not exist', async () => {
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(bad, 'tables: [\n  - {location: ');
    await expect(loadServiceConfig(bad)).rejects.toThrow(`${bad}: not valid YAML/JSON`);
    await expect(loadServiceConfig(path.join(dir, 'none.yaml'))).rejects.toMatchObject({ kind: 'NotFound' });
  });
});

describe('service config', () => {
  it('reads YAML: defaults merge under tables, relative paths resolve beside the file, false switches a job off', async () => {
    const file = path.join(dir, 'floe.yaml');
    writeFileSync(
      file,
      [
        'stateDir: ./state',
        'concurrency: 2',
        'backoff: { initial: 30s, max: 10m }',
        'defaults:',
        '  properties: { self-optimizing.minor.trigger.file-count: 8 }',
        '  jobs:',
        '    compact: every 15m',
        '    expire: { schedule: daily, olderThan: 5d, retainLast: 3 }',
        'tables:',
        '  - location: warehouse/db/orders',
        '    properties: { self-optimizing.target-size: 134217728 }',
        '    jobs:',
        '      remove-orphans: { schedule: "0 4 * * 0", olderThan: 7d }',
        '  - name: events',
        '    id: db.events',
        '    catalog: sql:catalog.db',
        '    jobs: { expire: false, compact: { schedule: "*/10 * * * *", strategy: binpack, partialProgress: true } }',
      ].join('\n'),
    );
    const c = await loadServiceConfig(file);
    expect(c.stateDir).toBe(path.join(dir, 'state'));
    expect(c.concurrency).toBe(2);
    expect(c.backoff).toEqual({ initialMs: 30_000, maxMs: 600_000 });
    const [orders, events] = c.tables;
    expect(orders!.name).toBe('orders');
    expect(orders!.table).toBe(path.join(dir, 'warehouse/db/orders'));
    expect(orders!.properties).toEqual({
      'self-optimizing.minor.trigger.file-count': '8',
      'self-optimizing.target-size': '134217728',
    });
    expect(orders!.jobs.map((j) => [j.kind, j.schedule.text])).toEqual([
      ['compact', 'every 15m'],
      ['expire', 'daily'],
      ['remove-orphans', '0 4 * * 0'],
    ]);
    expect(orders!.jobs[1]!.expire).toEqual({ olderThan: '5d', retainLast: 3 });
    expect(orders!.jobs[2]!.schedule.kind).toBe('cron');
    expect(events!.table).toBe('db.events');
    expect(events!.access.catalog).toBe(`sql:${path.join(dir, 'catalog.db')}`);
    expect(events!.jobs.map((j) => j.kind)).toEqual(['compact']);
    expect(events!.jobs[0]!.compact).toEqual({ strategy: 'binpack', partialProgress: true });
    // (targetSize is read by `floe compact`'s size parser, which loads the engine: see once-iceberg.test.ts)
  });

  it('reads JSON too', async () => {
    const file = path.join(dir, 'floe.json');
    writeFileSync(
      file,
      JSON.stringify({ stateDir: '/var/lib/floe', tables: [{ location: 's3://b/t', jobs: { expire: 'weekly' } }] }),
    );
    const c = await loadServiceConfig(file);
    expect(c.tables[0]!.table).toBe('s3://b/t');
    expect(c.tables[0]!.name).toBe('t');
    expect(c.stateDir).toBe('/var/lib/floe');
  });
});

describe('service config: state, http, webhook, catalogs', () => {
  it('reads the state target, the http block (token from the environment wins) and the webhook', async () => {
    const base = { tables: [{ location: '/w/t', jobs: { compact: 'daily' } }] };
    const pgc = await parseServiceConfig(
      {
        ...base,
        state: 'postgresql://floe@db:5432/floe',
        http: { port: 8080, token: 'config-token-0123456789', allowedHosts: ['Floe.Internal:8080'] },
        webhook: 'https://hooks.example/x',
      },
      'f.yaml',
      '/etc/floe',
      {},
    );
    expect(pgc.state).toBe('postgresql://floe@db:5432/floe');
    expect(pgc.stateDir).toBeUndefined();
    expect(pgc.http).toEqual({
      host: '127.0.0.1',
      port: 8080,
      token: 'config-token-0123456789',
      publicReads: false,
      allowedHosts: ['floe.internal:8080'],
    });
    expect(pgc.webhook).toEqual({ url: 'https://hooks.example/x', retries: 3, timeoutMs: 10_000 });
    const env = await parseServiceConfig(
      { ...base, state: 'state.db', http: { token: 'config-token-0123456789' } },
      'f.yaml',
      '/etc/floe',
      { FLOE_API_TOKEN: 'env-token-abcdefghijklmnop' },
    );
    expect(env.state).toBe('/etc/floe/state.db');
    expect(env.http.token).toBe('env-token-abcdefghijklmnop');
    const legacy = await parseServiceConfig({ ...base, stateDir: 'st' }, 'f.yaml', '/etc/floe', {});
    expect([legacy.state, legacy.stateDir]).toEqual(['/etc/floe/st/floe-state.db', '/etc/floe/st']);
  });

  it('reads catalogs and overrides; a config with catalogs needs no tables', async () => {
    const c = await parseServiceConfig(
      {
        state: 's.db',
        defaults: { jobs: { compact: 'hourly' }, jobTimeout: '2h' },
        catalogs: [
          { name: 'lake', catalog: 'sql:cat.db', catalogName: 'prod', include: ['sales.*'], exclude: ['sales.tmp_*'] },
          { name: 'rest', catalog: 'rest:http://cat:8181', warehouse: 'main', token: 't' },
          { name: 'wh', warehouse: 'warehouse', depth: 2, jobs: { expire: 'daily', compact: false } },
        ],
        overrides: [{ match: 'lake.**', maxBytesPerRun: '1GiB', concurrency: 2 }],
      },
      'f.yaml',
      '/etc/floe',
      {},
    );
    expect(c.tables).toEqual([]);
    expect(c.catalogs.map((x) => [x.name, x.kind, x.target])).toEqual([
      ['lake', 'sql', 'sql:/etc/floe/cat.db'],
      ['rest', 'rest', 'rest:http://cat:8181'],
      ['wh', 'warehouse', '/etc/floe/warehouse'],
    ]);
    expect(c.catalogs[0]!).toMatchObject({
      include: ['sales.*'],
      exclude: ['sales.tmp_*'],
      access: { catalogName: 'prod' },
    });
    expect(c.catalogs[1]!.access).toEqual({ catalog: 'rest:http://cat:8181', warehouse: 'main', token: 't' });
    expect(c.catalogs[2]!.jobs.compact).toBe(false);
    expect(c.catalogs[2]!.depth).toBe(2);
    expect(c.overrides[0]!).toMatchObject({
      match: 'lake.**',
      enabled: true,
      maxBytesPerRun: 1024 ** 3,
      concurrency: 2,
    });
    expect(c.defaults.jobTimeoutMs).toBe(2 * 3_600_000);
  });
});
