/**
 * Price sheets for `floe advise`: what object-store requests and compute cost. Request prices are per 1000
 * requests, compute per vCPU-hour (on-demand); currency USD. The values are the public list prices as the
 * author knew them (not fetched by a program): check them against the source before relying on the money
 * figures — the comparison between policies holds whatever the exact prices are, since all pay the same sheet.
 * A YAML/JSON file with the same keys (`--prices file.yaml`) replaces them.
 */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { FloeError } from '../../../util/errors.js';

export interface PriceSheet {
  name: string;
  /** Where the numbers come from, and when they were read. */
  source: string;
  date: string;
  currency: string;
  /** Per 1000 requests. PUT includes multipart parts (S3 bills each part as a PUT). */
  putPer1000: number;
  getPer1000: number;
  listPer1000: number;
  deletePer1000: number;
  /** Compute, per vCPU-hour. */
  vcpuHour: number;
}

/** Compute: an on-demand Graviton c7g.large (2 vCPU, $0.0725/h in us-east-1) = $0.03625 per vCPU-hour. */
const COMPUTE_VCPU_HOUR = 0.03625;

/** A sheet whose class-A requests (PUT, LIST) share one price and DELETE is free, as all three stores bill. */
function sheet(name: string, source: string, classAPer1000: number, getPer1000: number): PriceSheet {
  return {
    name,
    source,
    date: '2025-01',
    currency: 'USD',
    putPer1000: classAPer1000,
    getPer1000,
    listPer1000: classAPer1000,
    deletePer1000: 0,
    vcpuHour: COMPUTE_VCPU_HOUR,
  };
}

export const PRICE_SHEETS: Readonly<Record<string, PriceSheet>> = Object.freeze({
  'aws-s3-standard': sheet(
    'aws-s3-standard',
    'https://aws.amazon.com/s3/pricing/ (S3 Standard, us-east-1: PUT/COPY/POST/LIST $0.005 per 1000, GET $0.0004 per 1000, DELETE free); compute https://aws.amazon.com/ec2/pricing/on-demand/ (c7g.large)',
    0.005,
    0.0004,
  ),
  r2: sheet(
    'r2',
    'https://developers.cloudflare.com/r2/pricing/ (Class A $4.50 per million: PUT, LIST; Class B $0.36 per million: GET; DELETE free); compute as aws-s3-standard',
    0.0045,
    0.00036,
  ),
  gcs: sheet(
    'gcs',
    'https://cloud.google.com/storage/pricing (Standard, regional: Class A $0.005 per 1000: insert, list; Class B $0.0004 per 1000: get; delete free); compute as aws-s3-standard',
    0.005,
    0.0004,
  ),
});

export const DEFAULT_PRICE_SHEET = 'aws-s3-standard';

const NUMERIC: (keyof PriceSheet)[] = ['putPer1000', 'getPer1000', 'listPer1000', 'deletePer1000', 'vcpuHour'];

/** A named sheet, or a YAML/JSON file with the sheet's keys (missing keys are refused, not defaulted). */
export async function loadPriceSheet(nameOrFile: string | undefined): Promise<PriceSheet> {
  const name = nameOrFile ?? DEFAULT_PRICE_SHEET;
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
  if (spec === null || typeof spec !== 'object')
    throw new FloeError('InvalidArgument', `--prices ${name}: must be a mapping of price keys`, {
      context: { file: name },
    });
  const o = spec as Record<string, unknown>;
  const sheet: Record<string, unknown> = {
    name: typeof o.name === 'string' ? o.name : name,
    source: typeof o.source === 'string' ? o.source : name,
    date: typeof o.date === 'string' ? o.date : 'unknown',
    currency: typeof o.currency === 'string' ? o.currency : 'USD',
  };
  for (const k of NUMERIC) {
    const v = o[k];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
      throw new FloeError('InvalidArgument', `--prices ${name}: "${k}" must be a number ≥ 0`, {
        context: { file: name, key: k },
      });
    sheet[k] = v;
  }
  return sheet as unknown as PriceSheet;
}
