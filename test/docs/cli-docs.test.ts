import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { CLI_DOCS_PATH, renderCliDocs } from '../../scripts/gen-cli-docs.js';
import { COMMANDS, registerAll } from '../../src/shells/cli/commands/index.js';

describe('docs/cli.md', () => {
  it('is what scripts/gen-cli-docs.ts prints from the command definitions', async () => {
    const committed = await readFile(CLI_DOCS_PATH, 'utf8');
    const generated = await renderCliDocs();
    // one assertion message for CI: what to run, not a 300-line diff first
    expect(committed === generated, 'docs/cli.md is out of date: run `npm run docs:cli` and commit it').toBe(true);
  });

  it('names every command, argument and option the program defines, with each default', async () => {
    const text = await renderCliDocs();
    const program = new Command().name('floe');
    await registerAll(program);
    const leaves = program.commands.flatMap((c) => (c.commands.length > 0 ? c.commands : [c]));
    expect(leaves.length).toBeGreaterThanOrEqual(Object.keys(COMMANDS).length);
    for (const c of leaves) {
      const path = c.parent === program ? `floe ${c.name()}` : `floe ${c.parent?.name()} ${c.name()}`;
      const section = text.split(`\n## ${path}\n`)[1]?.split('\n## ')[0];
      expect(section, `section for ${path}`).toBeDefined();
      for (const o of c.options) {
        expect(section, `${path} ${o.flags}`).toContain(`| \`${o.flags.replace(/\|/g, '\\|')}\` |`);
        if (typeof o.defaultValue === 'string') expect(section).toContain(`\`${o.defaultValue}\``);
      }
      for (const a of c.registeredArguments) expect(section, `${path} <${a.name()}>`).toContain(a.name());
    }
  });

  it('is deterministic', async () => {
    expect(await renderCliDocs()).toBe(await renderCliDocs());
  });
});
