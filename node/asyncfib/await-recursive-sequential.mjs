// await-recursive-sequential -- the seed's fibonacci_async_10: an async
// function awaiting its two children one after the other.
import { main } from '../lib/contract.mjs';
import { asyncfib, awaitPass, counter } from './workload.mjs';

async function fib(num) {
  counter.calls++;
  if (num <= 1) return 1;
  return (await fib(num - 1)) + (await fib(num - 2));
}

export const variant = {
  workload: asyncfib, style: 'await', shape: 'recursive', mode: 'sequential', backend: 'none',
  fib,
  run: (pass) => awaitPass(pass, 'recursive', fib),
};

main(variant, import.meta.url);
