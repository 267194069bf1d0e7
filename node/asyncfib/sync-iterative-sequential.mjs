// sync-iterative-sequential -- the seed's fibonacci_20: a plain loop.
import { main } from '../lib/contract.mjs';
import { asyncfib, counter, plainPass } from './workload.mjs';

function fib(num) {
  counter.calls++;
  let a = 1;
  let b = 0;
  let temp;
  while (num >= 0) {
    temp = a;
    a = a + b;
    b = temp;
    num--;
  }
  return b;
}

export const variant = {
  workload: asyncfib, style: 'sync', shape: 'iterative', mode: 'sequential', backend: 'none',
  fib,
  run(pass, done) {
    plainPass(pass, 'iterative', fib);
    done();
  },
};

main(variant, import.meta.url);
