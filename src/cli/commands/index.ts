/** Every sub-command registers itself here; one line per command module. */
import type { Command } from 'commander';
import { register as registerPlan } from './plan.js';
import { register as registerInspect } from './inspect.js';
import { register as registerScan } from './scan.js';
import { register as registerSimulate } from './simulate.js';
import { register as registerCompact } from './compact.js';
import { register as registerDemo } from './demo.js';
import { register as registerExpire } from './expire.js';
import { register as registerRemoveOrphans } from './remove-orphans.js';
import { register as registerRewriteManifests } from './rewrite-manifests.js';
import { register as registerServe } from './serve.js';

type Register = (program: Command) => void;

const registrations: Register[] = [
  // (command modules add themselves below)
  registerPlan,
  registerInspect,
  registerScan,
  registerSimulate,
  registerCompact,
  registerDemo,
  registerExpire,
  registerRemoveOrphans,
  registerRewriteManifests,
  registerServe,
];

export function registerAll(program: Command): void {
  for (const register of registrations) register(program);
}
