// workload.mjs -- noop, the example workload (docs/adding.md): an operation does no
// work and completes with its own iteration number i, on a later turn of the
// event loop (setImmediate), never inside the call that started it.  A
// completion verifies when its value is i; it reads nothing, so bytes stay 0.
// No flags and no setup: what is left is the contract and the style.
import { defineWorkload } from '../lib/contract.mjs';

export const noop = defineWorkload({
  name: 'noop',
  unit: 'operation',
  verifier() {
    return (i, value) => (value === i ? 0 : `completed with ${JSON.stringify(value)}, expected ${i}`);
  },
});

/** Starts operation i; cb(null, i) runs on a later turn of the loop. */
export function operate(i, cb) {
  setImmediate(cb, null, i);
}

/** Operation i as a promise that fulfils with i on a later turn of the loop. */
export function operateAsync(i) {
  return new Promise((resolve) => setImmediate(resolve, i));
}
