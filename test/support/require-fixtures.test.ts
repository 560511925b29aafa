import { mkdtempSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import setup, { fixturesRoot, missingFixturesMessage } from './require-fixtures.js';

describe('the shared-fixtures gate', () => {
  it('fails a run without the fixtures, naming where they are expected and where they come from', () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'floe-no-fixtures-'));
    const msg = missingFixturesMessage(empty);
    expect(msg).toContain(`${empty}/MANIFEST.json`);
    expect(msg).toMatch(/MANIFEST\.md/);
  });
  it('passes where the fixtures are laid', () => {
    expect(missingFixturesMessage(fixturesRoot)).toBeUndefined();
    expect(() => setup()).not.toThrow();
  });
});
