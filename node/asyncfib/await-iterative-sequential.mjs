// await-iterative-sequential -- the seed's fibonacci_async_20: the loop in
// an async function.
import { main } from '../lib/contract.mjs';
import { asyncfib, awaitPass, counter } from './workload.mjs';

async function fib(num) {
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
  workload: asyncfib, style: 'await', shape: 'iterative', mode: 'sequential', backend: 'none',
  fib,
  run: (pass) => awaitPass(pass, 'iterative', fib),
};

main(variant, import.meta.url);
