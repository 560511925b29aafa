/**
 * `floe --version --verbose`: the version, the runtime, and which Parquet codec this install runs on (the
 * native addon and where it was loaded from, or the WebAssembly fallback and how to get the native codec).
 */
import { codecChoice, nativeCodecHint, nativeCodecStatus } from '../../../connectors/formats/parquet/codec.js';

export function verboseVersion(version: string): string {
  const status = nativeCodecStatus();
  const lines = [
    `floe ${version}`,
    `node ${process.version} (${process.platform}-${process.arch}${status.triple ? `, codec package triple ${status.triple}` : ''})`,
  ];
  let choice: ReturnType<typeof codecChoice>;
  try {
    choice = codecChoice();
  } catch (e) {
    return [...lines, `parquet codec: ${(e as Error).message}`, ''].join('\n');
  }
  const from =
    status.source === 'package'
      ? `package ${status.package}`
      : status.source === 'env'
        ? 'FLOE_NATIVE_CODEC_PATH'
        : 'the checkout build';
  if (choice.name === 'native' && status.available) lines.push(`parquet codec: native — ${from} (${status.path})`);
  else if (choice.name === 'native')
    lines.push(`parquet codec: native required by FLOE_PARQUET_CODEC=native, but it did not load (${status.error})`);
  else if (!choice.fallback) lines.push('parquet codec: wasm (FLOE_PARQUET_CODEC=wasm)');
  else {
    lines.push(`parquet codec: wasm — the WebAssembly fallback (same output, ~2-3x slower): ${status.error}`);
    lines.push(`  to get the native codec: ${nativeCodecHint()}`);
  }
  return `${lines.join('\n')}\n`;
}
