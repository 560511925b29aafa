import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../../connectors/storage/memory-store.js';
import { runObjectStoreContract } from './contract.js';

runObjectStoreContract('memory', async () => ({ store: new MemoryObjectStore() }));

describe('MemoryObjectStore paging', () => {
  it('serves a listing in pages of pageSize (like ListObjectsV2 MaxKeys)', async () => {
    const store = new MemoryObjectStore();
    for (let i = 0; i < 7; i++) await store.put(`d/${i}`, 'x');
    store.listRequests = 0;
    const keys = [];
    for await (const e of store.list('d/', { pageSize: 2 })) keys.push(e.key);
    expect(keys).toEqual(['d/0', 'd/1', 'd/2', 'd/3', 'd/4', 'd/5', 'd/6']);
    expect(store.listRequests).toBe(4); // 2+2+2+1
  });
});
