export * from './object-store.js';
export * from './retry.js';
export * from './location.js';
export * from './request-counter.js';
export { MemoryObjectStore, compareKeys } from './memory-store.js';
export { LocalObjectStore, isTempName, type LocalStoreOptions } from './local-store.js';
export {
  S3ObjectStore,
  createS3Client,
  type S3ConnectionConfig,
  type S3Credentials,
  type S3Sender,
  type S3StoreOptions,
} from './s3-store.js';
export {
  FileIO,
  fileIOWithMappings,
  requireFound,
  storeFor,
  type ListNamesOptions,
  type ListedFile,
  type ResolvedLocation,
  type StorageConfig,
} from './file-io.js';
export {
  DeleteScope,
  removeWithin,
  type DeleteScopeOptions,
  type IgnoredRoot,
  type LocationMapper,
} from './confine.js';
