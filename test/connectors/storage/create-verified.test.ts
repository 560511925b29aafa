/**
 * createVerified's decision table (the rule behind every commit write): our bytes found → ours; another
 * writer's → PreconditionFailed; absent after an ambiguous failure → one more conditional create;
 * unreadable → outcome unknown; a refusal (403) → passed through, nothing stored.
 */
import { describe, expect, it } from 'vitest';
import { FloeError, isFloeError } from '../../../util/errors.js';
import { createVerified, isOutcomeUnknown } from '../../../connectors/storage/create-verified.js';

const ours = new TextEncoder().encode('{"ours":true}');
const theirs = new TextEncoder().encode('{"ours":false}');

function target(o: { stored?: Uint8Array; creates: (() => void)[]; readFails?: boolean }) {
  let stored = o.stored;
  let calls = 0;
  return {
    calls: () => calls,
    stored: () => stored,
    t: {
      location: 'memory://t/v2.metadata.json',
      create: async () => {
        calls++;
        const step = o.creates.shift();
        if (step) return step();
        if (stored) throw new FloeError('PreconditionFailed', 'exists');
        stored = ours;
      },
      read: async () => {
        if (o.readFails) throw new FloeError('Transient', 'reset');
        if (!stored) throw new FloeError('NotFound', 'missing');
        return stored;
      },
    },
    apply: () => {
      stored = ours;
    },
  };
}

const transient = () => {
  throw new FloeError('Transient', 'connection reset');
};

describe('createVerified', () => {
  it('created on the first try', async () => {
    const x = target({ creates: [] });
    expect(await createVerified(x.t, ours)).toBe('created');
  });

  it('412 with our bytes stored → found-ours', async () => {
    const x = target({ stored: ours, creates: [] });
    expect(await createVerified(x.t, ours)).toBe('found-ours');
  });

  it("412 with another writer's bytes → PreconditionFailed (takenByOther)", async () => {
    const x = target({ stored: theirs, creates: [] });
    const e = await createVerified(x.t, ours).catch((v: unknown) => v);
    expect(isFloeError(e, 'PreconditionFailed')).toBe(true);
    expect((e as FloeError).context.takenByOther).toBe(true);
  });

  it('applied but the answer lost → found-ours without a second create', async () => {
    const x = target({ creates: [] });
    x.t.create = async () => {
      x.apply();
      throw new FloeError('Transient', 'reset after apply');
    };
    expect(await createVerified(x.t, ours)).toBe('found-ours');
  });

  it('failed without applying → absent → created by a second conditional create', async () => {
    const x = target({ creates: [transient] });
    expect(await createVerified(x.t, ours)).toBe('created');
    expect(x.calls()).toBe(2);
  });

  it('failing twice while absent, or unreadable → outcome unknown', async () => {
    const twice = target({ creates: [transient, transient] });
    expect(isOutcomeUnknown(await createVerified(twice.t, ours).catch((v: unknown) => v))).toBe(true);
    const unreadable = target({ creates: [transient], readFails: true });
    expect(isOutcomeUnknown(await createVerified(unreadable.t, ours).catch((v: unknown) => v))).toBe(true);
  });

  it('a refusal (403) passes through: nothing was stored, no read-back needed', async () => {
    const x = target({
      creates: [
        () => {
          throw new FloeError('AccessDenied', 'denied');
        },
      ],
    });
    const e = await createVerified(x.t, ours).catch((v: unknown) => v);
    expect(isFloeError(e, 'AccessDenied')).toBe(true);
    expect(x.calls()).toBe(1);
  });
});
