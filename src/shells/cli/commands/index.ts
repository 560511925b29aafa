/**
 * Every sub-command, loaded only when it runs: `floe --version` and `floe --help` import none of them
 * (the summaries below are what the top-level help lists). One line per command module.
 */
import type { Command } from 'commander';

type Register = (program: Command) => void;

export interface CommandEntry {
  summary: string;
  load: () => Promise<{ register: Register }>;
}

export const COMMANDS: Readonly<Record<string, CommandEntry>> = Object.freeze({
  inspect: {
    summary: 'Show an Iceberg or Paimon table: snapshots, files by size class, deletes, partitions, health',
    load: () => import('./inspect.js'),
  },
  scan: {
    summary: 'Print the live rows of an Iceberg or Paimon table (all deletes applied)',
    load: () => import('./scan.js'),
  },
  compact: {
    summary: 'Compact small files and apply deletes, then commit (Iceberg or Paimon)',
    load: () => import('./compact.js'),
  },
  expire: {
    summary: 'Expire old snapshots, then delete files only they referenced',
    load: () => import('./expire.js'),
  },
  'expire-partitions': {
    summary: 'Paimon: drop partitions older than partition.expiration-time (an OVERWRITE snapshot)',
    load: () => import('./expire-partitions.js'),
  },
  'remove-orphans': {
    summary: 'Delete unreferenced files older than the safety window',
    load: () => import('./remove-orphans.js'),
  },
  'rewrite-manifests': {
    summary: 'Iceberg: rewrite data manifests into target-sized, partition-clustered ones',
    load: () => import('./rewrite-manifests.js'),
  },
  plan: {
    summary: 'Show what a compaction planner would do, without touching a table',
    load: () => import('./plan.js'),
  },
  simulate: {
    summary: 'Replay a commit stream against compaction policies and compare them',
    load: () => import('./simulate.js'),
  },
  advise: {
    summary: "Recommend compaction settings by replaying the table's own history (--apply sets them)",
    load: () => import('./advise.js'),
  },
  demo: {
    summary: 'Seed a local warehouse with a fragmented Iceberg table, compact it and verify the rows',
    load: () => import('./demo.js'),
  },
  serve: { summary: 'Run scheduled maintenance for the tables in a config file', load: () => import('./serve.js') },
});

/** Registers the real definition of one command (its module is imported now). */
export async function registerCommand(program: Command, name: string): Promise<boolean> {
  const entry = COMMANDS[name];
  if (!entry) return false;
  (await entry.load()).register(program);
  return true;
}

/** Every command's real definition (tests; `floe help` with no command needs only the summaries). */
export async function registerAll(program: Command): Promise<void> {
  for (const name of Object.keys(COMMANDS)) await registerCommand(program, name);
}

/** Name-and-summary placeholders, enough for the top-level help and "unknown command" suggestions. */
export function registerSummaries(program: Command): void {
  for (const [name, entry] of Object.entries(COMMANDS)) program.command(name).description(entry.summary);
}
