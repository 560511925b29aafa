/**
 * openUploadWriter (connectors/storage/object-store.ts): `write` resolves once the store is done with the
 * chunk — it asked for the next one, or its upload ended — because the native encoder refills the same buffer
 * after each write (codec.ts' ChunkSink). A store that fails or stops reading must not leave a writer hanging.
 */
import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../../connectors/storage/memory-store.js';
import { openUploadWriter, type PutResult, type PutStreamOptions } from '../../../connectors/storage/object-store.js';

/**
 * A real in-memory store whose uploads first read through `consume` (which decides when to ask for more and
 * returns copies of what it read); the rest of the body is read as MemoryObjectStore reads it.
 */
class SteppedStore extends MemoryObjectStore {
  constructor(private readonly consume: (body: AsyncIterator<Uint8Array>) => Promise<Uint8Array[]>) {
    super();
  }
  override async putStream(
    key: string,
    body: AsyncIterable<Uint8Array>,
    options?: PutStreamOptions,
  ): Promise<PutResult> {
    const it = body[Symbol.asyncIterator]();
    const read = await this.consume(it);
    async function* all() {
      yield* read;
      for (let n = await it.next(); !n.done; n = await it.next()) yield n.value;
    }
    return super.putStream(key, all(), options);
  }
}

const settled = async (p: Promise<unknown>): Promise<boolean> => {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  return done;
};

describe('openUploadWriter', () => {
  it('resolves a write only when the store comes back for the next chunk', async () => {
    let more!: () => void;
    const gate = new Promise<void>((r) => (more = r));
    const store = new SteppedStore(async (it) => {
      const first = await it.next(); // the store holds the first chunk until the gate opens
      await gate;
      return [first.value.slice()];
    });
    const w = openUploadWriter(store, 'k');
    const first = w.write(new Uint8Array([1, 2, 3]));
    expect(await settled(first)).toBe(false);
    more();
    await first;
    await w.write(new Uint8Array([4]));
    await w.close();
    expect(await store.get('k')).toEqual(new Uint8Array([1, 2, 3, 4]));
  });

  it('a store that fails while holding a chunk rejects that write and every later one', async () => {
    const store = new SteppedStore(async (it) => {
      await it.next();
      throw new Error('disk on fire');
    });
    const w = openUploadWriter(store, 'k');
    await expect(w.write(new Uint8Array([1]))).rejects.toThrow('disk on fire');
    await expect(w.write(new Uint8Array([2]))).rejects.toThrow('disk on fire');
    await w.abort();
    expect(await store.exists('k')).toBe(false);
  });

  it('a store that fails before reading anything rejects the waiting write', async () => {
    const store = new SteppedStore(async () => {
      await new Promise((r) => setImmediate(r));
      throw new Error('refused');
    });
    const w = openUploadWriter(store, 'k');
    await expect(w.write(new Uint8Array([1]))).rejects.toThrow('refused');
  });
});
