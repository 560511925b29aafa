/** Minimal ORC reader (enough for Paimon manifests): see reader.ts for the value mapping. */
export { readOrcFile, type OrcFile } from './reader.js';
export { readTail, readStripeFooter, TypeKind, StreamKind, EncodingKind, typeKindName } from './tail.js';
export type {
  OrcTail,
  OrcType,
  Footer,
  PostScript,
  StripeInfo,
  StripeFooter,
  StreamInfo,
  ColumnEncoding,
} from './tail.js';
export { CompressionKind, decompressOrc, lz4BlockDecompress } from './compression.js';
export {
  ByteCursor,
  decodeByteRle,
  decodeBooleanRle,
  decodeIntRleV1,
  decodeIntRleV2,
  decodeWidth,
  closestFixedBits,
} from './rle.js';
export { Proto, parseMessage, readVarint } from './protobuf.js';
