/**
 * Price sheets: what object-store requests and compute cost, per 1000 requests and per vCPU-hour. The sheets
 * floe ships are data files, `prices/<name>.yaml` in the package (aws-s3-standard, r2, gcs), each naming its
 * source page and the date it was read; `--prices file.yaml|file.json` reads a sheet with the same keys.
 * `priceOf` is the one place figures become money (estimates, measured runs, `floe advise`, budgets).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { FloeError } from '../../../util/errors.js';
import type { RequestCounts } from '../../../connectors/storage/request-counter.js';

export interface PriceSheet {
  name: string;
  /** Where the numbers come from, and when they were read. */
  source: string;
  date: string;
  currency: string;
  /** Per 1000 requests. PUT includes multipart parts (each part is billed as a PUT). */
  putPer1000: number;
  getPer1000: number;
  listPer1000: number;
  deletePer1000: number;
  /** HEAD (S3 bills it with GET; a user sheet without it pays the GET price). */
  headPer1000: number;
  /** Compute, per vCPU-hour. */
  vcpuHour: number;
}

export const DEFAULT_PRICE_SHEET = 'aws-s3-standard';

const REQUIRED = ['putPer1000', 'getPer1000', 'listPer1000', 'deletePer1000', 'vcpuHour'] as const;

/** The shipped sheets' directory: `prices/` beside floe's package.json (from source or from dist). */
function sheetsDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'prices');
    if (existsSync(path.join(candidate, `${DEFAULT_PRICE_SHEET}.yaml`))) return candidate;
    const up = path.dirname(dir);
    if (up === dir)
      throw new FloeError('Internal', `floe's price sheets (prices/*.yaml) are missing from the installation`);
    dir = up;
  }
}

/** A sheet from parsed YAML/JSON; missing or negative prices are refused, not defaulted. */
function sheetFrom(spec: unknown, where: string, fallbackName: string): PriceSheet {
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec))
    throw new FloeError('InvalidArgument', `--prices ${where}: must be a mapping of price keys`, {
      context: { file: where },
    });
  const o = spec as Record<string, unknown>;
  const text = (k: string, dflt: string) => (typeof o[k] === 'string' ? (o[k] as string) : dflt);
  const sheet: Record<string, unknown> = {
    name: text('name', fallbackName),
    source: text('source', where),
    date: typeof o.date === 'string' || o.date instanceof Date ? String(o.date) : 'unknown',
    currency: text('currency', 'USD'),
  };
  const price = (k: string): number => {
    const v = o[k];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
      throw new FloeError('InvalidArgument', `--prices ${where}: "${k}" must be a number ≥ 0`, {
        context: { file: where, key: k },
      });
    return v;
  };
  for (const k of REQUIRED) sheet[k] = price(k);
  sheet.headPer1000 = o.headPer1000 === undefined ? sheet.getPer1000 : price('headPer1000');
  return sheet as unknown as PriceSheet;
}

function loadShipped(): Record<string, PriceSheet> {
  const dir = sheetsDir();
  const out: Record<string, PriceSheet> = {};
  for (const f of readdirSync(dir).sort()) {
    if (!f.endsWith('.yaml')) continue;
    const name = f.slice(0, -'.yaml'.length);
    const file = path.join(dir, f);
    out[name] = Object.freeze(sheetFrom(parseYaml(readFileSync(file, 'utf8')), file, name));
  }
  return out;
}

/** The shipped sheets by name. */
export const PRICE_SHEETS: Readonly<Record<string, PriceSheet>> = Object.freeze(loadShipped());

/** A shipped sheet by name, or a YAML/JSON file with the sheet's keys (default aws-s3-standard). */
export async function loadPriceSheet(nameOrPath?: string): Promise<PriceSheet> {
  const name = nameOrPath ?? DEFAULT_PRICE_SHEET;
  const named = PRICE_SHEETS[name];
  if (named) return named;
  if (!/\.(ya?ml|json)$/i.test(name))
    throw new FloeError(
      'InvalidArgument',
      `--prices ${name}: not a price sheet (${Object.keys(PRICE_SHEETS).join(', ')}) nor a .yaml/.json file`,
      { context: { option: '--prices' } },
    );
  let spec: unknown;
  try {
    spec = parseYaml(await readFile(name, 'utf8'));
  } catch (e) {
    throw new FloeError('InvalidArgument', `--prices ${name}: cannot read (${(e as Error).message})`, {
      context: { file: name },
      cause: e,
    });
  }
  return sheetFrom(spec, name, name);
}

/** What a run's figures cost at a sheet (`requests` may be partial: advise predicts GET and PUT only). */
export interface Cost {
  total: number;
  currency: string;
  /** The sheet's name. */
  sheet: string;
  /** Of which requests, and compute. */
  requests: number;
  compute: number;
}

export function priceOf(figures: { requests: Partial<RequestCounts>; cpuSeconds: number }, sheet: PriceSheet): Cost {
  const r = figures.requests;
  const requests =
    ((r.get ?? 0) * sheet.getPer1000 +
      (r.put ?? 0) * sheet.putPer1000 +
      (r.list ?? 0) * sheet.listPer1000 +
      (r.delete ?? 0) * sheet.deletePer1000 +
      (r.head ?? 0) * sheet.headPer1000) /
    1000;
  const compute = (figures.cpuSeconds / 3600) * sheet.vcpuHour;
  return { total: requests + compute, currency: sheet.currency, sheet: sheet.name, requests, compute };
}
