/** Renders progress events on stderr: a redrawn bar on a terminal, one line per finished task otherwise. */
import type { ProgressEvent, ProgressListener } from '../execution/events.js';

export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

export function progressRenderer(stream: NodeJS.WriteStream = process.stderr): ProgressListener {
  const tty = stream.isTTY === true;
  let tasks = 0;
  let done = 0;
  let failed = 0;
  let read = 0;
  let totalBytes = 0;
  let written = 0;
  const bar = () => {
    const width = 24;
    const frac = totalBytes > 0 ? Math.min(1, read / totalBytes) : tasks > 0 ? done / tasks : 1;
    const fill = Math.round(frac * width);
    return `[${'#'.repeat(fill)}${'-'.repeat(width - fill)}] ${done + failed}/${tasks} tasks, ${formatBytes(read)} read, ${formatBytes(written)} written`;
  };
  return (e: ProgressEvent) => {
    switch (e.type) {
      case 'plan':
        tasks = e.tasks;
        totalBytes = e.inputBytes;
        stream.write(`planned ${e.tasks} task(s) over ${e.inputFiles} file(s), ${formatBytes(e.inputBytes)}\n`);
        return;
      case 'file-read':
        read += e.bytes;
        if (tty) stream.write(`\r${bar()}`);
        return;
      case 'file-written':
        written += e.bytes;
        if (tty) stream.write(`\r${bar()}`);
        return;
      case 'task-done':
        done++;
        if (tty) stream.write(`\r${bar()}`);
        else stream.write(`task ${e.taskId}: ${e.outputFiles} file(s) written, ${e.rowsOut} rows\n`);
        return;
      case 'task-failed':
        failed++;
        stream.write(`${tty ? '\n' : ''}task ${e.taskId} failed: ${e.error}\n`);
        return;
      case 'commit':
        stream.write(`${tty ? '\n' : ''}committed snapshot ${e.snapshotId} (${e.groups} group(s), attempt ${e.attempt})\n`);
        return;
      case 'commit-retry':
        stream.write(`${tty ? '\n' : ''}commit conflict, retrying (attempt ${e.attempt}): ${e.reason}\n`);
        return;
      case 'message':
        stream.write(`${e.level}: ${e.text}\n`);
        return;
      default:
        return;
    }
  };
}
