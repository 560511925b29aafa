/**
 * `floe simulate <preset|stream.json> [--policy file]... [--out chart.svg] [--json]` — replay a commit
 * stream against compaction policies and compare files, deletes and bytes rewritten side by side.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { Command } from 'commander';
import { renderResult, writeStdout } from '../result.js';
import { resultDocument } from '../../../app/result.js';
import { FloeError } from '../../../../util/errors.js';
import { didYouMean } from '../../../../util/did-you-mean.js';
import {
  defaultPoliciesForStream,
  getPreset,
  isPreset,
  loadPolicyFile,
  loadStreamFile,
  presetNames,
  renderChart,
  renderReport,
  reportJson,
  simulate,
  type CommitStream,
  type Policy,
} from '../../../core/simulate/index.js';

export interface SimulateCliOptions {
  policy?: string[];
  /** Compare only the --policy files, not the preset's own policies. */
  only?: boolean;
  out?: string;
  json?: boolean;
}

/** The action behind `floe simulate`; writes its output through `write` so tests can capture it. */
export async function simulateAction(
  target: string,
  opts: SimulateCliOptions,
  write: (text: string) => void = writeStdout,
): Promise<void> {
  let stream: CommitStream;
  let policies: Policy[];
  let label: string;
  const extra = await Promise.all((opts.policy ?? []).map((p) => loadPolicyFile(p)));
  if (isPreset(target)) {
    const preset = getPreset(target);
    stream = preset.stream;
    policies = opts.only ? [] : preset.policies;
    label = preset.name;
  } else {
    if (!existsSync(target))
      throw new FloeError(
        'InvalidArgument',
        `simulate ${target}: neither a preset nor a commit stream file${didYouMean(target, presetNames())}; presets: ${presetNames().join(', ')} (or a stream JSON file, see src/core/simulate/README.md)`,
        { context: { file: target } },
      );
    stream = await loadStreamFile(target);
    policies = opts.only ? [] : defaultPoliciesForStream();
    label = basename(target, extname(target));
  }
  // A --policy with the name of a built-in one replaces it.
  for (const p of extra) policies = [...policies.filter((q) => q.name !== p.name), p];
  if (policies.length === 0) {
    throw new FloeError(
      'InvalidArgument',
      `simulate ${target}: no policies to compare (--only needs at least one --policy; presets: ${presetNames().join(', ')})`,
    );
  }

  const report = simulate(stream, policies);
  const out = opts.out ?? `./floe-sim-${label}.svg`;
  await writeFile(out, renderChart(report), 'utf8');
  if (opts.json)
    write(
      renderResult(
        resultDocument('simulate', 0, JSON.parse(reportJson({ ...report, chart: out })) as Record<string, unknown>),
      ),
    );
  else write(`${renderReport(report)}\n\nchart: ${out}\n`);
}

export function register(program: Command): void {
  program
    .command('simulate')
    .description(
      `Replay a commit stream against compaction policies and compare them (presets: ${presetNames().join(', ')}; or a stream JSON file, see src/core/simulate/README.md)`,
    )
    .argument('<preset|stream>', 'a preset name or a commit stream JSON file')
    .option(
      '--policy <file>',
      'a policy JSON/YAML file (planner + properties + schedule); repeatable',
      (v: string, acc: string[] = []) => [...acc, v],
    )
    .option('--only', 'compare only the --policy files, not the built-in policies')
    .option('--out <file>', 'where to write the SVG chart (default ./floe-sim-<name>.svg)')
    .option('--json', 'print the numbers (and per-minute timelines) as JSON')
    .action((target: string, opts: SimulateCliOptions) => simulateAction(target, opts));
}
