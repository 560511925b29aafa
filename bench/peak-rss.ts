/**
 * This process's own peak RSS. On Linux getrusage's maxrss (process.resourceUsage().maxRSS) survives
 * fork + exec: a child spawned by a big bench parent reports the parent's RSS at fork as its floor (a
 * 600 MB parent → every child "peaks" at ≥ 576 MiB). /proc/self/status VmHWM is the high-water mark of
 * the process's current address space, i.e. since exec; maxRSS is the fallback where /proc is missing.
 */
import { readFileSync } from 'node:fs';

export function ownPeakRssBytes(): number {
  try {
    const m = /^VmHWM:\s*(\d+)\s*kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch {
    // not Linux: fall through
  }
  return process.resourceUsage().maxRSS * 1024;
}

/** The same rule for the Python children (DuckDB): a snippet that defines `own_peak_rss_bytes()`. */
export const PY_OWN_PEAK_RSS = `
def own_peak_rss_bytes():
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
`;
