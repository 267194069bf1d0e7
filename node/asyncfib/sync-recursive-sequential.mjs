// sync-recursive-sequential -- the seed's fibonacci_10: plain recursion.
import { main } from '../lib/contract.mjs';
import { asyncfib, counter, plainPass } from './workload.mjs';

function fib(num) {
  counter.calls++;
  if (num <= 1) return 1;
  return fib(num - 1) + fib(num - 2);
}

export const variant = {
  workload: asyncfib, style: 'sync', shape: 'recursive', mode: 'sequential', backend: 'none',
  fib,
  run(pass, done) {
    plainPass(pass, 'recursive', fib);
    done();
  },
};

main(variant, import.meta.url);
