// promise-iterative-sequential -- the seed's fibonacci_promise: a plain
// function that returns new Promise(...) resolved with the loop's result.
import { main } from '../lib/contract.mjs';
import { asyncfib, awaitPass, counter } from './workload.mjs';

function fib(num) {
  counter.calls++;
  return new Promise((resolve) => {
    let a = 1;
    let b = 0;
    let temp;
    while (num >= 0) {
      temp = a;
      a = a + b;
      b = temp;
      num--;
    }
    resolve(b);
  });
}

export const variant = {
  workload: asyncfib, style: 'promise', shape: 'iterative', mode: 'sequential', backend: 'none',
  fib,
  run: (pass) => awaitPass(pass, 'iterative', fib),
};

main(variant, import.meta.url);
