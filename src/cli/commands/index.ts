/** Every sub-command registers itself here; one line per command module. */
import type { Command } from 'commander';

type Register = (program: Command) => void;

const registrations: Register[] = [
  // (command modules add themselves below)
];

export function registerAll(program: Command): void {
  for (const register of registrations) register(program);
}
