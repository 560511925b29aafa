/**
 * Progress of long work, as events. The CLI renders them as a progress bar; the service and host
 * integrations forward them (Temporal heartbeats, logs). Emitting never throws into the job.
 */
export type ProgressEvent =
  | { type: 'plan'; tasks: number; inputFiles: number; inputBytes: number }
  | { type: 'task-start'; taskId: string; inputFiles: number; inputBytes: number }
  | { type: 'file-read'; taskId: string; path: string; bytes: number; rows: number }
  | { type: 'file-written'; taskId: string; path: string; bytes: number; rows: number }
  | {
      type: 'task-done';
      taskId: string;
      outputFiles: number;
      bytesRead: number;
      bytesWritten: number;
      rowsIn: number;
      rowsOut: number;
    }
  | { type: 'task-failed'; taskId: string; error: string }
  | { type: 'commit'; snapshotId: string; attempt: number; groups: number }
  | { type: 'commit-retry'; attempt: number; reason: string }
  | { type: 'deleted'; path: string; bytes?: number }
  | { type: 'message'; level: 'info' | 'warn'; text: string };

export type ProgressListener = (event: ProgressEvent) => void;

export function safeEmitter(listener: ProgressListener | undefined): ProgressListener {
  return (event) => {
    if (!listener) return;
    try {
      listener(event);
    } catch {
      // a broken progress sink must not fail the job
    }
  };
}
