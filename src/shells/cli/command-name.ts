/** Which sub-command a command line names: for the CLI's lazy loading (program.ts) and its start-up (main.ts). */

/** The sub-command named on the command line (`floe [--flags] <command> …`, `floe help <command>`). */
export function commandName(args: readonly string[]): { name?: string; path: string } {
  const words = args.filter((a) => !a.startsWith('-'));
  let name = words[0];
  if (name === 'help' && words[1]) name = words[1];
  const path = name === 'plan' && words[1] && words[0] !== 'help' ? `plan ${words[1]}` : (name ?? '');
  return { ...(name !== undefined ? { name } : {}), path };
}
