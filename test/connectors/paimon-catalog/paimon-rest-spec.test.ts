/**
 * `--catalog paimon-rest:…`: where its token may come from (never the spec, never --token, not the Iceberg
 * catalogs' $FLOE_REST_TOKEN) and what is refused before any request. The protocol itself runs against
 * Paimon's own server in integration/paimon-catalog/rest.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openPaimonCatalog } from '../../../connectors/catalog/paimon-catalog.js';
import { paimonRestProperties } from '../../../connectors/catalog/paimon-rest.js';
import { isFloeError } from '../../../util/errors.js';

const SPEC = 'paimon-rest:http://127.0.0.1:9?warehouse=lake';
const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

describe('paimon-rest catalog spec', () => {
  it('refuses a token in the spec and with --token, naming where to put it', async () => {
    await expect(openPaimonCatalog(`${SPEC}&token=s3cr3t-value`)).rejects.toThrow(/"token" is a secret/);
    const err = await openPaimonCatalog(SPEC, { token: 's3cr3t-value' }).catch((e: unknown) => e);
    expect(isFloeError(err, 'InvalidArgument')).toBe(true);
    expect((err as Error).message).toMatch(/FLOE_PAIMON_REST_TOKEN .* not --token/);
    expect((err as Error).message).not.toContain('s3cr3t-value');
  });

  it('takes the token from the catalog properties, else $FLOE_PAIMON_REST_TOKEN', () => {
    expect(paimonRestProperties({ warehouse: 'w' }, { FLOE_PAIMON_REST_TOKEN: 'from-env' })).toEqual({
      warehouse: 'w',
      token: 'from-env',
    });
    expect(paimonRestProperties({ token: 'from-file' }, { FLOE_PAIMON_REST_TOKEN: 'from-env' }).token).toBe(
      'from-file',
    );
    expect(paimonRestProperties({}, { FLOE_REST_TOKEN: 'iceberg-token' }).token).toBeUndefined();
  });

  it('a spec without a warehouse is refused before any request, naming the catalog', async () => {
    // port 9 is closed: a request would fail differently
    const err = await openPaimonCatalog('paimon-rest:http://127.0.0.1:9').catch((e: unknown) => e);
    expect(isFloeError(err, 'InvalidArgument')).toBe(true);
    expect((err as Error).message).toMatch(
      /Paimon REST catalog paimon-rest:http:\/\/127\.0\.0\.1:9: give its warehouse/,
    );
  });
});
