import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalObjectStore, MemoryObjectStore, type ObjectStore } from '../../connectors/storage/index.js';
import { acquireTableLease, adoptTableLease, readTableLease } from '../../src/lease/lease.js';
import { withTableLease } from '../../src/lease/table-lease.js';
import { FileIO } from '../../connectors/storage/index.js';
import { FloeError } from '../../util/errors.js';
import { exitCodeForError } from '../../src/app/exit-codes.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function localStore(): Promise<ObjectStore> {
  const d = await mkdtemp(path.join(tmpdir(), 'floe-lease-'));
  dirs.push(d);
  return new LocalObjectStore(d);
}

const KEY = 't/.floe/lease.json';
const stores: [string, () => Promise<ObjectStore>][] = [
  ['memory', async () => new MemoryObjectStore()],
  ['local', localStore],
];

/** A clock the test moves by hand. */
function clock(start = 1_700_000_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe.each(stores)('table lease on the %s store', (_name, make) => {
  it('of many racing acquirers exactly one wins; the others get "table busy" (exit 75)', async () => {
    const store = await make();
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        acquireTableLease(store, KEY, { table: 't', job: 'compact', holder: `w${i}`, heartbeatMs: 0 }),
      ),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(7);
    for (const l of lost) {
      expect(l.reason).toBeInstanceOf(FloeError);
      expect((l.reason as FloeError).message).toMatch(/^table busy: t is leased by w\d .* until \d{4}-\d\d-\d\dT/);
      expect(exitCodeForError(l.reason)).toBe(75);
    }
    const winner = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof acquireTableLease>>>).value;
    expect((await readTableLease(store, KEY))?.holder).toBe(winner.holder);
    await winner.release();
  });

  it('renewal extends the expiry, release frees the table for the next job', async () => {
    const store = await make();
    const c = clock();
    const a = await acquireTableLease(store, KEY, {
      table: 't',
      job: 'compact',
      holder: 'a',
      ttlMs: 10_000,
      heartbeatMs: 0,
      now: c.now,
    });
    const first = (await readTableLease(store, KEY))!.expiresAtMs;
    c.advance(8_000);
    await a.renew();
    const renewed = (await readTableLease(store, KEY))!;
    expect(renewed.expiresAtMs).toBe(first + 8_000);
    c.advance(8_000); // past the first expiry, inside the renewed one
    await expect(
      acquireTableLease(store, KEY, { table: 't', job: 'expire', holder: 'b', heartbeatMs: 0, now: c.now }),
    ).rejects.toMatchObject({ context: { busy: true, holder: 'a' } });
    await a.release();
    expect((await readTableLease(store, KEY))!.releasedAtMs).toBeDefined();
    const b = await acquireTableLease(store, KEY, {
      table: 't',
      job: 'expire',
      holder: 'b',
      heartbeatMs: 0,
      now: c.now,
    });
    expect((await readTableLease(store, KEY))!.holder).toBe('b');
    await b.release();
  });

  it('a stale lease is taken over by exactly one of racing takers, and the old holder learns it lost', async () => {
    const store = await make();
    const c = clock();
    const old = await acquireTableLease(store, KEY, {
      table: 't',
      job: 'compact',
      holder: 'dead',
      ttlMs: 5_000,
      heartbeatMs: 0,
      now: c.now,
    });
    c.advance(6_000);
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        acquireTableLease(store, KEY, {
          table: 't',
          job: 'compact',
          holder: `t${i}`,
          ttlMs: 5_000,
          heartbeatMs: 0,
          now: c.now,
        }),
      ),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as FloeError).context.busy).toBe(true);
    const holder = (await readTableLease(store, KEY))!.holder;
    expect(holder).toMatch(/^t\d$/);
    // the old holder's heartbeat comes too late: it must not get the lease back
    expect(old.lost).toBe(false);
    await expect(old.renew()).rejects.toMatchObject({ context: { leaseLost: true } });
    expect(old.lost).toBe(true);
    expect(old.signal.aborted).toBe(true);
    await old.release(); // a lost lease is left alone
    expect((await readTableLease(store, KEY))!.holder).toBe(holder);
    expect((await readTableLease(store, KEY))!.releasedAtMs).toBeUndefined();
  });

  it('a taker that died after claiming a stale lease does not block the table forever', async () => {
    const store = await make();
    const c = clock(Date.now());
    const old = await acquireTableLease(store, KEY, {
      table: 't',
      job: 'compact',
      holder: 'dead',
      ttlMs: 1,
      heartbeatMs: 0,
      now: c.now,
    });
    const rec = (await readTableLease(store, KEY))!;
    // the claim a crashed taker left behind, written long ago by the store's clock
    await store.put(`${KEY}.claim-${rec.token}-0`, 'x', { ifNoneMatch: '*' });
    c.advance(5_000);
    await expect(
      acquireTableLease(store, KEY, {
        table: 't',
        job: 'compact',
        holder: 'n',
        ttlMs: 60_000,
        heartbeatMs: 0,
        now: c.now,
      }),
    ).rejects.toMatchObject({ context: { busy: true } });
    c.advance(120_000); // the claim is older than a TTL now
    const n = await acquireTableLease(store, KEY, {
      table: 't',
      job: 'compact',
      holder: 'n',
      ttlMs: 60_000,
      heartbeatMs: 0,
      now: c.now,
    });
    expect((await readTableLease(store, KEY))!.holder).toBe('n');
    await n.release();
    void old;
  });
});

describe('withTableLease', () => {
  it('holds the lease while the job runs, refuses a second job without running it, and releases after', async () => {
    const io = new FileIO();
    io.mount('memory://wh', new MemoryObjectStore('memory://wh'));
    let secondRan = false;
    await withTableLease('memory://wh/db/t', { job: 'compact', fileIO: io, holder: 'first' }, async (scope) => {
      expect(scope.runId).toMatch(/^[0-9a-f-]{36}$/);
      await expect(
        withTableLease('memory://wh/db/t/', { job: 'expire', fileIO: io, holder: 'second' }, async () => {
          secondRan = true;
        }),
      ).rejects.toThrow(/table busy: memory:\/\/wh\/db\/t\/? is leased by first/);
    });
    expect(secondRan).toBe(false);
    await withTableLease('memory://wh/db/t', { job: 'expire', fileIO: io, holder: 'second' }, async () => {
      secondRan = true;
    });
    expect(secondRan).toBe(true);
  });

  it('enabled: false runs without touching the store', async () => {
    const io = new FileIO();
    const store = new MemoryObjectStore('memory://wh');
    io.mount('memory://wh', store);
    await withTableLease('memory://wh/db/t', { job: 'compact', fileIO: io, enabled: false }, async (scope) =>
      expect(scope.lease).toBeUndefined(),
    );
    expect(await store.exists('db/t/.floe/lease.json')).toBe(false);
  });
});

describe.each(stores)('workers of one run sharing its lease on the %s store', (_name, make) => {
  it('renewing at the same moment never makes one of them think the lease was taken over', async () => {
    const store = await make();
    const first = await acquireTableLease(store, KEY, {
      table: 't',
      job: 'compact',
      holder: 'run-owner',
      heartbeatMs: 0,
    });
    const workers = await Promise.all(
      Array.from({ length: 4 }, () => adoptTableLease(store, KEY, { runId: first.runId, table: 't', heartbeatMs: 0 })),
    );
    for (let round = 0; round < 10; round++) await Promise.all([first, ...workers].map((l) => l.renew()));
    expect([first, ...workers].map((l) => l.lost)).toEqual([false, false, false, false, false]);
    expect((await readTableLease(store, KEY))!.runId).toBe(first.runId);
    await first.release();
  });
});
