/**
 * The platform triples of the codec packages (connectors/formats/parquet/native-platform.ts): the napi-rs names
 * npm installs by `os`/`cpu`/`libc`, and the one the loader picks for a process.
 */
import { describe, expect, it } from 'vitest';
import {
  NATIVE_TARGETS,
  codecFileName,
  codecPackageName,
  hostTriple,
} from '../../../connectors/formats/parquet/native-platform.js';

describe('codec package platforms', () => {
  it('names one package per platform the issue lists, in the napi-rs convention', () => {
    expect(NATIVE_TARGETS.map((t) => codecPackageName(t.triple))).toEqual(
      expect.arrayContaining([
        '@floe/parquet-codec-linux-x64-gnu',
        '@floe/parquet-codec-linux-arm64-gnu',
        '@floe/parquet-codec-linux-x64-musl',
        '@floe/parquet-codec-darwin-arm64',
        '@floe/parquet-codec-darwin-x64',
        '@floe/parquet-codec-win32-x64-msvc',
      ]),
    );
    expect(new Set(NATIVE_TARGETS.map((t) => t.triple)).size).toBe(NATIVE_TARGETS.length);
    expect(codecFileName('linux-x64-gnu')).toBe('floe-parquet-codec.linux-x64-gnu.node');
  });

  it('picks the triple of a process by platform, CPU and C library', () => {
    const glibc = () => false;
    const musl = () => true;
    expect(hostTriple('linux', 'x64', glibc)).toBe('linux-x64-gnu');
    expect(hostTriple('linux', 'x64', musl)).toBe('linux-x64-musl');
    expect(hostTriple('linux', 'arm64', glibc)).toBe('linux-arm64-gnu');
    expect(hostTriple('darwin', 'arm64', musl)).toBe('darwin-arm64'); // libc is Linux's question only
    expect(hostTriple('win32', 'x64', glibc)).toBe('win32-x64-msvc');
    expect(hostTriple('freebsd', 'x64', glibc)).toBeUndefined();
    expect(hostTriple('linux', 'ia32', glibc)).toBeUndefined();
  });

  it('takes this machine for what it is', () => {
    const libc = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
    if (process.platform === 'linux' && process.arch === 'x64' && libc?.header?.glibcVersionRuntime)
      expect(hostTriple()).toBe('linux-x64-gnu');
    else expect(hostTriple()).toBe(hostTriple(process.platform, process.arch));
  });
});
