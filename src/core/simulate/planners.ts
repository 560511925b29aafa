/**
 * The planners a policy can name, bound to the real planner modules (the simulator has no model of
 * its own of what they decide). Stateful planners keep their state here between calls, as the
 * maintenance service would persist it between runs.
 */
import { planBinpack } from '../planning/binpack/index.js';
import { binpackOptionsFrom, tieredPolicyFromProperties } from '../planning/policy.js';
import { advanceTieredState, planTiered, type TieredState } from '../planning/tiered/index.js';
import type { PlannerRunner } from './engine.js';
import type { Policy } from './types.js';

function binpackRunner(policy: Policy): PlannerRunner {
  // Options parse once, up front, so a bad property fails before the simulation starts.
  const options = binpackOptionsFrom(policy.properties, policy.properties);
  return { plan: (table, nowMs) => planBinpack(table, options, nowMs) };
}

function tieredRunner(policy: Policy): PlannerRunner {
  const tiered = tieredPolicyFromProperties(policy.properties);
  let state: TieredState | undefined;
  return {
    plan(table, nowMs) {
      const plan = planTiered(table, tiered, nowMs, state);
      // Every plan commits in the simulation (compaction is instantaneous), so the state advances.
      if (plan.tasks.length > 0) state = advanceTieredState(state, plan);
      return plan;
    },
  };
}

/** The runner for a policy, or undefined for `none` (no compaction at all). */
export function plannerFor(policy: Policy): PlannerRunner | undefined {
  switch (policy.planner) {
    case 'binpack':
      return binpackRunner(policy);
    case 'tiered':
      return tieredRunner(policy);
    case 'none':
      return undefined;
  }
}
