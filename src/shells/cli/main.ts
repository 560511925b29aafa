#!/usr/bin/env node
/**
 * floe's executable: sets the process up, then loads the command line (program.ts). Kept to a few small
 * modules so what must happen before the rest loads — and before any work reaches libuv's threads — does.
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
// static, not import(): an import() reads its modules through libuv's threads first
import { nativeCodecStatus, wantedCodec } from '../../../connectors/formats/parquet/native-codec.js';
import { commandName } from './command-name.js';

/** Commands that may rewrite data files, and so run the native Parquet codec. */
const REWRITING: ReadonlySet<string> = new Set(['compact', 'demo', 'serve', 'advise']);

/** Whether this module is the program being run (through a bin symlink too), not imported. */
function isMain(): boolean {
  const invoked = process.argv[1];
  if (!invoked) return false;
  try {
    return pathToFileURL(realpathSync(invoked)).href === import.meta.url;
  } catch {
    return false;
  }
}

if (isMain()) {
  // V8 doubles the young generation whenever a scavenge finds much alive, up to 2 × 16 MiB, and does not give
  // it back while the run lasts; the ArrayBuffers of the rewrite's input files die in it, freed only when it is
  // scavenged. Kept at its first size the process peaked ~30–50 MiB lower on a 128 MiB rewrite round at
  // --parallelism 2, planning at the same CPU (bench/RESULTS.md, issue 27). V8 reads the factor as it grows.
  setFlagsFromString('--semi-space-growth-factor=1');
  // The native codec sets glibc's allocator up as it loads (native/parquet-codec/src/allocator.rs); its arena
  // limit holds only for threads that have not allocated yet, so it loads first, before the rest of the CLI
  // is read (bench/RESULTS.md, issue 27). Only for commands that rewrite; a missing addon is reported later.
  if (REWRITING.has(commandName(process.argv.slice(2)).name ?? '')) {
    try {
      if (wantedCodec() !== 'wasm') nativeCodecStatus();
    } catch {
      // a bad FLOE_PARQUET_CODEC: the command reports it when it picks its codec
    }
  }
  const { runMain } = await import('./program.js');
  runMain();
}
