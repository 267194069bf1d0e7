// promise-recursive-sequential -- a plain function returning a promise:
// Promise.resolve(1) for n <= 1, else Promise.all of both children, then
// their sum (the seed had no recursive promise version; this is C's
// promise-recursive written in JavaScript).
import { main } from '../lib/contract.mjs';
import { asyncfib, awaitPass, counter } from './workload.mjs';

const add = ([a, b]) => a + b;

function fib(num) {
  counter.calls++;
  if (num <= 1) return Promise.resolve(1);
  return Promise.all([fib(num - 1), fib(num - 2)]).then(add);
}

export const variant = {
  workload: asyncfib, style: 'promise', shape: 'recursive', mode: 'sequential', backend: 'none',
  fib,
  run: (pass) => awaitPass(pass, 'recursive', fib),
};

main(variant, import.meta.url);
