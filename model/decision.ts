/**
 * A planner's decision trail is part of the neutral model: planners write it, format adapters that plan their
 * own work (Paimon append and primary-key compaction) add to it, and every shell renders it.
 */

/** One readable step of a decision: which gate was asked, what it saw, and what it decided. */
export interface DecisionStep {
  gate: string;
  /** Human-readable observation, e.g. "candidate size 30 MB / next run 100 MB = 30% ≤ 101%". */
  detail: string;
  outcome: 'pass' | 'fail' | 'pick' | 'skip' | 'info';
  /** Optional numbers a UI or --json consumer can use. */
  values?: Record<string, number | string | boolean | null>;
}
