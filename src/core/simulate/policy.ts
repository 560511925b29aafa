/**
 * Simulation policies: a planner, the table properties it reads its options from, and a schedule.
 * Policy files are JSON or YAML with the same shape:
 *
 *   name: tiered-every-2m
 *   planner: tiered            # tiered | binpack | none
 *   properties:
 *     self-optimizing.minor.trigger.file-count: 20
 *   schedule: { kind: periodic, everyMinutes: 2 }   # or kind: on-change
 */
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { FloeError } from '../../../util/errors.js';
import type { Policy, PolicySpec, Schedule } from './types.js';

const PLANNERS = ['tiered', 'binpack', 'none'] as const;

function invalid(source: string, what: string): FloeError {
  return new FloeError('InvalidArgument', `policy ${source}: ${what}`, { context: { file: source } });
}

/** Validates a policy spec; property values are stringified as a catalog would store them. */
export function normalizePolicy(spec: PolicySpec, source = spec?.name ?? '<policy>'): Policy {
  if (spec === null || typeof spec !== 'object') throw invalid(source, 'must be an object');
  if (typeof spec.name !== 'string' || spec.name === '') throw invalid(source, '"name" must be a non-empty string');
  if (!PLANNERS.includes(spec.planner))
    throw invalid(source, `"planner" must be one of ${PLANNERS.join(', ')}, got ${JSON.stringify(spec.planner)}`);
  const properties: Record<string, string> = {};
  for (const [k, v] of Object.entries(spec.properties ?? {})) {
    if (!['string', 'number', 'boolean', 'bigint'].includes(typeof v))
      throw invalid(source, `property ${k} must be a scalar`);
    properties[k] = String(v);
  }
  const kind = spec.schedule?.kind ?? 'periodic';
  if (kind !== 'periodic' && kind !== 'on-change')
    throw invalid(source, `schedule.kind must be periodic or on-change, got ${JSON.stringify(kind)}`);
  const everyMinutes = Number(spec.schedule?.everyMinutes ?? 1);
  if (!Number.isFinite(everyMinutes) || everyMinutes <= 0) throw invalid(source, `schedule.everyMinutes must be > 0`);
  const schedule: Schedule = { kind, everyMinutes };
  return { name: spec.name, description: spec.description ?? '', planner: spec.planner, properties, schedule };
}

/** Reads a policy from a .json, .yaml or .yml file (YAML is a superset, so any extension parses). */
export async function loadPolicyFile(path: string): Promise<Policy> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new FloeError('NotFound', `policy ${path}: cannot read (${(e as Error).message})`, {
      context: { file: path },
      cause: e,
    });
  }
  let spec: unknown;
  try {
    spec = extname(path).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw invalid(path, `cannot parse (${(e as Error).message})`);
  }
  return normalizePolicy(spec as PolicySpec, path);
}
