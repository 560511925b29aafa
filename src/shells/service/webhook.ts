/**
 * Failure and recovery notifications: a JSON POST to the configured URL, retried with a doubling delay
 * (1 s, 2 s, 4 s …) on network errors and 5xx/429 answers. Delivery runs in the background, in order; the
 * scheduler never waits for it, and a webhook that stays down only costs log lines.
 */
import type { WebhookConfig } from './config.js';

export interface WebhookEvent {
  event: 'job-failed' | 'job-recovered';
  table: string;
  location: string;
  job: string;
  at: string;
  consecutiveFailures: number;
  error?: string;
  /** For job-recovered: how many failures the streak had. */
  failuresBefore?: number;
}

export type WebhookLog = (level: 'warn' | 'info', event: string, fields: Record<string, unknown>) => void;

export class WebhookNotifier {
  /** Deliveries go out one after another, so a receiver sees failure before recovery. */
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly cfg: WebhookConfig,
    private readonly log: WebhookLog,
    private readonly fetchImpl: typeof fetch = fetch,
    private readonly retryDelayMs = 1000,
  ) {}

  notify(e: WebhookEvent): void {
    this.chain = this.chain.then(() => this.deliver(e)).catch(() => undefined);
  }

  /** Resolves when every notification sent so far was delivered or gave up (shutdown, tests). */
  async drain(): Promise<void> {
    let last: Promise<void>;
    do {
      last = this.chain;
      await last;
    } while (last !== this.chain);
  }

  private async deliver(e: WebhookEvent): Promise<void> {
    const body = JSON.stringify({ source: 'floe', ...e });
    let lastError = '';
    for (let attempt = 1; attempt <= this.cfg.retries + 1; attempt++) {
      try {
        const res = await this.fetchImpl(this.cfg.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'floe-serve' },
          body,
          signal: AbortSignal.timeout(this.cfg.timeoutMs),
        });
        await res.arrayBuffer().catch(() => undefined);
        if (res.ok) {
          this.log('info', 'webhook-delivered', {
            table: e.table,
            job: e.job,
            notification: e.event,
            attempt,
            status: res.status,
          });
          return;
        }
        lastError = `HTTP ${res.status}`;
        // a 4xx other than 429 will not get better by asking again
        if (res.status < 500 && res.status !== 429) break;
      } catch (err) {
        lastError = err instanceof Error ? err.message : String(err);
      }
      if (attempt <= this.cfg.retries) await new Promise((r) => setTimeout(r, this.retryDelayMs * 2 ** (attempt - 1)));
    }
    this.log('warn', 'webhook-failed', {
      table: e.table,
      job: e.job,
      notification: e.event,
      url: redact(this.cfg.url),
      error: lastError,
    });
  }
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    u.search = '';
    return u.toString();
  } catch {
    return '(invalid url)';
  }
}
