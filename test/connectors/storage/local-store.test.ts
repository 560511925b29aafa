import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FloeError } from '../../../util/errors.js';
import { LocalObjectStore } from '../../../connectors/storage/local-store.js';
import { runObjectStoreContract } from './contract.js';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), 'floe-local-store-'));
  dirs.push(d);
  return d;
}
afterAll(async () => {
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
});

runObjectStoreContract('local filesystem', async () => ({ store: new LocalObjectStore(await tempDir()) }));

describe('LocalObjectStore specifics', () => {
  it('keeps in-flight temp files out of listings and leaves none behind', async () => {
    const root = await tempDir();
    const store = new LocalObjectStore(root);
    await store.put('t/a', 'a');
    await fs.writeFile(path.join(root, 't', '.b.floe-tmp-abc123'), 'half-written');
    const keys = [];
    for await (const e of store.list('t/')) keys.push(e.key);
    expect(keys).toEqual(['t/a']);
    await store.put('t/c', 'c', { ifNoneMatch: '*' });
    await store.put('t/c', 'c2').catch(() => undefined);
    await expect(store.put('t/c', 'c3', { ifNoneMatch: '*' })).rejects.toThrow(FloeError);
    const names = (await fs.readdir(path.join(root, 't'))).sort();
    expect(names).toEqual(['.b.floe-tmp-abc123', 'a', 'c']);
  });

  it('lists its leftover temp files only when asked (includeTemporary: orphan removal)', async () => {
    const root = await tempDir();
    const store = new LocalObjectStore(root);
    await store.put('t/a', 'a');
    await fs.writeFile(path.join(root, 't', '.b.floe-tmp-abc123'), 'half-written');
    const plain = [];
    for await (const e of store.list('t/')) plain.push(e.key);
    const all = [];
    for await (const e of store.list('t/', { includeTemporary: true })) all.push(e.key);
    expect(plain).toEqual(['t/a']);
    expect(all).toEqual(['t/.b.floe-tmp-abc123', 't/a']);
  });

  it('rejects keys that escape the root', async () => {
    const store = new LocalObjectStore(await tempDir());
    await expect(store.put('../outside', 'x')).rejects.toMatchObject({ kind: 'InvalidArgument' });
    await expect(store.get('a/../../x')).rejects.toMatchObject({ kind: 'InvalidArgument' });
  });

  it('reports per-key delete failures without failing the batch', async () => {
    const root = await tempDir();
    const store = new LocalObjectStore(root);
    await store.put('x/file', 'f');
    await store.put('x/dir/inner', 'i'); // "x/dir" is a directory: unlink fails with EISDIR
    const res = await store.deleteMany(['x/file', 'x/dir']);
    expect(res.deleted).toEqual(['x/file']);
    expect(res.failed.map((f) => f.key)).toEqual(['x/dir']);
    expect(res.failed[0]!.error.message).toContain(path.join(root, 'x/dir'));
    expect(res.failed[0]!.error.context.file).toBe(`file://${path.join(root, 'x/dir')}`);
  });

  it(
    'create-if-absent is atomic across processes: 8 racing node processes, one winner',
    { timeout: 60_000 },
    async () => {
      const root = await tempDir();
      const script = `
      import { LocalObjectStore } from ${JSON.stringify(path.resolve('connectors/storage/local-store.ts'))};
      const store = new LocalObjectStore(process.argv[2]);
      const me = process.argv[3];
      const body = new TextEncoder().encode(me.repeat(200000));
      await new Promise((r) => setTimeout(r, Number(process.argv[4]) - Date.now()));
      try { await store.put('race/key', body, { ifNoneMatch: '*' }); console.log('WIN ' + me); }
      catch (e) { console.log(e.kind === 'PreconditionFailed' ? 'LOSE ' + me : 'ERR ' + e.message); }
    `;
      const scriptFile = path.join(root, 'racer.mts');
      await fs.writeFile(scriptFile, script);
      const startAt = Date.now() + 3000; // all processes fire at the same instant once loaded
      const tsx = path.resolve('node_modules/.bin/tsx');
      const outputs = await Promise.all(
        'ABCDEFGH'.split('').map(
          (me) =>
            new Promise<string>((resolve, reject) => {
              const p = spawn(tsx, [scriptFile, root, me, String(startAt)], { stdio: ['ignore', 'pipe', 'inherit'] });
              let out = '';
              p.stdout.on('data', (d) => (out += d));
              p.on('error', reject);
              p.on('close', () => resolve(out.trim()));
            }),
        ),
      );
      const winners = outputs.filter((o) => o.startsWith('WIN '));
      expect(outputs.filter((o) => !o.startsWith('WIN ') && !o.startsWith('LOSE '))).toEqual([]);
      expect(winners).toHaveLength(1);
      const winner = winners[0]!.slice(4);
      const stored = await fs.readFile(path.join(root, 'race/key'), 'utf8');
      expect(stored).toBe(winner.repeat(200000));
    },
  );
});
