/**
 * Who a process is, precisely enough to tell later whether it is still running: host, pid, and the
 * process's start time (Linux: /proc/<pid>/stat field 22, clock ticks since boot) plus the boot id, so a pid
 * recycled by another process — or reused after a reboot — is never taken for the original. Used by the
 * table lease (a dead holder's lease is stale at once) and by the sort spill directories (a dead run's
 * directory is removed at the next start).
 *
 * Only a process on this host can be judged: anything recorded on another host is "unknown" (alive).
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

export interface ProcessIdentity {
  host: string;
  pid: number;
  /** /proc/<pid>/stat field 22 as text (absent where /proc is not there). */
  startTicks?: string;
  /** /proc/sys/kernel/random/boot_id (absent where /proc is not there). */
  bootId?: string;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Field 22 (starttime) of /proc/<pid>/stat; the command name (field 2) may hold spaces and parentheses. */
export function processStartTicks(pid: number): string | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  const afterName = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // afterName[0] is field 3 (state), so field 22 is afterName[19]
  const v = afterName[19];
  return v !== undefined && /^\d+$/.test(v) ? v : undefined;
}

let bootIdCache: string | undefined | null = null;
function bootId(): string | undefined {
  if (bootIdCache === null) bootIdCache = readText('/proc/sys/kernel/random/boot_id')?.trim() || undefined;
  return bootIdCache;
}

let self: ProcessIdentity | undefined;
/** This process. */
export function currentProcessIdentity(): ProcessIdentity {
  if (!self) {
    const startTicks = processStartTicks(process.pid);
    const boot = bootId();
    self = {
      host: hostname(),
      pid: process.pid,
      ...(startTicks ? { startTicks } : {}),
      ...(boot ? { bootId: boot } : {}),
    };
  }
  return self;
}

export type Liveness = { alive: true; why?: string } | { alive: false; why: string };

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to someone else
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the process `p` names is still running. `alive: false` only when that is certain: same host, and
 * the machine rebooted since, or the pid is gone, or the pid now belongs to a process started at another time.
 */
export function processLiveness(p: Partial<ProcessIdentity> | undefined): Liveness {
  if (!p || typeof p.host !== 'string' || typeof p.pid !== 'number' || !Number.isInteger(p.pid) || p.pid <= 0)
    return { alive: true, why: 'no process recorded' };
  const me = currentProcessIdentity();
  if (p.host !== me.host) return { alive: true, why: `on another host (${p.host})` };
  if (p.bootId && me.bootId && p.bootId !== me.bootId)
    return { alive: false, why: `host ${p.host} restarted since process ${p.pid} started` };
  if (p.pid === me.pid && (!p.startTicks || p.startTicks === me.startTicks)) return { alive: true };
  if (!pidExists(p.pid)) return { alive: false, why: `process ${p.pid} on this host (${p.host}) is gone` };
  if (p.startTicks) {
    const now = processStartTicks(p.pid);
    if (now !== undefined && now !== p.startTicks)
      return {
        alive: false,
        why: `process ${p.pid} on this host (${p.host}) is gone (the pid now names another process)`,
      };
  }
  return { alive: true };
}
