/**
 * The platforms the native Parquet codec is packaged for, in the napi-rs convention: one npm package per
 * platform, `@floe/parquet-codec-<triple>`, whose `os`/`cpu`/`libc` fields let npm install only the one that
 * fits, holding `floe-parquet-codec.<triple>.node` as its `main`. The loader (native-codec.ts) picks the one for
 * the running process; scripts/pack-native.mjs builds them; scripts/prepack.mjs lists them in the packed
 * floe's `optionalDependencies`.
 */
import { readFileSync } from 'node:fs';

export interface NativeTarget {
  /** napi-rs' platform triple, the package name's suffix. */
  triple: string;
  os: NodeJS.Platform;
  cpu: string;
  libc?: 'glibc' | 'musl';
  /** The Rust target the addon is compiled for. */
  rustTarget: string;
}

export const NATIVE_TARGETS: readonly NativeTarget[] = [
  { triple: 'linux-x64-gnu', os: 'linux', cpu: 'x64', libc: 'glibc', rustTarget: 'x86_64-unknown-linux-gnu' },
  { triple: 'linux-arm64-gnu', os: 'linux', cpu: 'arm64', libc: 'glibc', rustTarget: 'aarch64-unknown-linux-gnu' },
  { triple: 'linux-x64-musl', os: 'linux', cpu: 'x64', libc: 'musl', rustTarget: 'x86_64-unknown-linux-musl' },
  { triple: 'linux-arm64-musl', os: 'linux', cpu: 'arm64', libc: 'musl', rustTarget: 'aarch64-unknown-linux-musl' },
  { triple: 'darwin-arm64', os: 'darwin', cpu: 'arm64', rustTarget: 'aarch64-apple-darwin' },
  { triple: 'darwin-x64', os: 'darwin', cpu: 'x64', rustTarget: 'x86_64-apple-darwin' },
  { triple: 'win32-x64-msvc', os: 'win32', cpu: 'x64', rustTarget: 'x86_64-pc-windows-msvc' },
];

export const CODEC_PACKAGE_SCOPE = '@floe';

export function codecPackageName(triple: string): string {
  return `${CODEC_PACKAGE_SCOPE}/parquet-codec-${triple}`;
}

export function codecFileName(triple: string): string {
  return `floe-parquet-codec.${triple}.node`;
}

/**
 * Whether this Linux process runs on musl: Node reports the glibc it runs with (process.report's header has
 * `glibcVersionRuntime` on glibc only); the report is built only when the quicker look at ldd is inconclusive.
 */
function isMusl(): boolean {
  try {
    const ldd = readFileSync('/usr/bin/ldd', 'utf8');
    if (ldd.includes('musl')) return true;
    if (ldd.includes('GNU C Library') || ldd.includes('GLIBC')) return false;
  } catch {
    /* no ldd: ask Node */
  }
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return !header?.glibcVersionRuntime;
}

/** The triple of the running process, or undefined on a platform no package is built for. */
export function hostTriple(
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
  musl: () => boolean = isMusl,
): string | undefined {
  const libc = platform === 'linux' ? (musl() ? 'musl' : 'glibc') : undefined;
  return NATIVE_TARGETS.find((t) => t.os === platform && t.cpu === arch && t.libc === libc)?.triple;
}
