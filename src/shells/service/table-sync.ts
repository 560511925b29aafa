/**
 * The tables under management, kept equal to what the config and the catalogs' discovery list: new ones
 * are added with their persisted state, changed ones take the new configuration, and ones no longer listed
 * (or opted out) are retired after their running job. Every change is written to the state database's
 * table list, so replicas and the dashboard see it.
 */
import type { TableConfig } from './config.js';
import type { ServiceCore, TableRuntime } from './service-core.js';
import { emptyTableState } from './state.js';
import type { ManagedTable } from './state-db.js';

export type OptedOut = ReadonlyMap<string, { location: string; source: string; reason: string }>;

export async function syncTables(core: ServiceCore, cfgs: readonly TableConfig[], optedOut: OptedOut): Promise<void> {
  const now = core.clock.now();
  const db = core.db;
  const rows = new Map((db ? await db.tableRows() : []).map((r) => [r.name, r]));
  for (const cfg of cfgs) await addOrUpdate(core, cfg, rows.get(cfg.name), now);
  const wanted = new Set(cfgs.map((c) => c.name));
  for (const [name, t] of [...core.tables]) {
    if (!wanted.has(name)) await retire(core, name, t, optedOut, now);
  }
  for (const [name, o] of optedOut) {
    if (core.tables.has(name) || rows.get(name)?.status === 'opted-out') continue;
    await db?.upsertTable({
      name,
      location: o.location,
      source: o.source,
      status: 'opted-out',
      statusReason: o.reason,
      lastSeenMs: now,
      retiredAtMs: now,
    });
  }
  if (core.mode === 'serving') core.tick();
}

async function addOrUpdate(
  core: ServiceCore,
  cfg: TableConfig,
  row: ManagedTable | undefined,
  now: number,
): Promise<void> {
  let t = core.tables.get(cfg.name);
  if (!t) {
    const state = (await core.store!.load(cfg.name)) ?? emptyTableState(cfg.table);
    t = { cfg, state, forced: new Map(), paused: row?.paused ?? false, held: new Map(), ranBecause: new Map() };
    core.tables.set(cfg.name, t);
    if (core.mode !== 'new')
      core.emit('info', 'table-added', { table: cfg.name, location: cfg.table, source: cfg.source });
  } else {
    t.cfg = cfg;
    t.retiring = false;
    // another replica may have paused or resumed it
    if (row) t.paused = row.paused;
  }
  let firstSeen = false;
  for (const j of cfg.jobs) {
    const s = (t.state.jobs[j.kind] ??= { consecutiveFailures: 0 });
    if (s.firstSeenMs === undefined) {
      s.firstSeenMs = now;
      firstSeen = true;
    }
    core.metrics.declare(cfg.name, j.kind, s, true);
  }
  core.metrics.setPaused(cfg.name, t.paused);
  await core.db?.upsertTable({
    name: cfg.name,
    location: cfg.table,
    ...(cfg.format ? { format: cfg.format } : {}),
    source: cfg.source,
    status: 'active',
    lastSeenMs: now,
  });
  // a schedule seen for the first time is remembered (a cron job's first run counts from it)
  if (firstSeen && !t.running) await core.store!.save(cfg.name, t.state);
}

async function retire(
  core: ServiceCore,
  name: string,
  t: TableRuntime,
  optedOut: OptedOut,
  now: number,
): Promise<void> {
  const why = optedOut.get(name)?.reason ?? 'no longer listed by its catalog or the config';
  if (t.running) {
    t.retiring = true;
  } else {
    core.tables.delete(name);
    core.metrics.forget(name);
  }
  core.emit('info', 'table-retired', { table: name, location: t.cfg.table, reason: why });
  await core.db?.upsertTable({
    name,
    location: t.cfg.table,
    source: t.cfg.source,
    status: optedOut.has(name) ? 'opted-out' : 'retired',
    statusReason: why,
    lastSeenMs: now,
    retiredAtMs: now,
  });
}
