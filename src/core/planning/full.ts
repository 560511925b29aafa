/**
 * Full compaction of an Iceberg table (`floe compact --full`): every live data file of the selected
 * partitions is rewritten into target-size files with the deletes that apply to it — Spark's bin-pack with
 * `rewrite-all=true` (every file is a candidate, every group is kept). `self-optimizing.filter` (`--where`)
 * narrows the files first, as it does for the other planners. The target follows Spark:
 * `target-file-size-bytes`, else the table's `write.target-file-size-bytes`, else 512 MiB.
 */
import type { TableModel } from '../../../model/index.js';
import type { Plan } from './plan.js';
import { planBinpack } from './binpack/index.js';
import { binpackOptionsFrom } from './policy.js';
import { compileFilter } from './predicate.js';
import { labelTasks } from './partition-label.js';

export function planFull(model: TableModel, props: Record<string, string>, now: number): Plan {
  const filter = props['self-optimizing.filter'];
  const scoped = filter ? { ...model, dataFiles: model.dataFiles.filter(compileFilter(filter, model)) } : model;
  const plan = planBinpack(scoped, binpackOptionsFrom({ ...props, 'rewrite-all': 'true' }, props), now);
  plan.trail.unshift({
    gate: 'full',
    detail:
      `full compaction: all ${scoped.dataFiles.length} data file(s)${filter ? ` matching ${JSON.stringify(filter)} (of ${model.dataFiles.length})` : ''} ` +
      'rewritten into target-size files (bin-pack, rewrite-all)',
    outcome: 'info',
    values: { selectedFiles: scoped.dataFiles.length, totalFiles: model.dataFiles.length },
  });
  return labelTasks(plan, model);
}
