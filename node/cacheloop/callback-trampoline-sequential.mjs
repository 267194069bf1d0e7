// callback-trampoline-sequential -- seed 002's second program: a hit calls
// back at once, inside load(); the loop absorbs such synchronous answers
// without recursing (its `async` marks the turn: a callback that finds it
// still open only advances i), and an answer that comes later restarts it.
import fs from 'fs';
import { main } from '../lib/contract.mjs';
import { cacheKey, cacheloop, newCache, settle } from './workload.mjs';

export const variant = {
  workload: cacheloop, style: 'callback', shape: 'trampoline', mode: 'sequential', backend: 'fs.readFile',
  run(pass, done) {
    const cache = newCache(pass);
    const key = cacheKey(pass);
    function load(name, cb) {
      const res = cache.get(name);
      if (res) {
        cache.hits++;
        cb(null, res);
      } else {
        fs.readFile(name, (err, data) => {
          if (err) return cb(err);
          cache.misses++;
          cache.set(name, data);
          cb(null, data);
        });
      }
    }
    function loop(i) {
      let async;
      while (async !== true) {
        async = undefined;
        if (i === pass.n) {
          settle(pass, cache);
          done();
          return;
        }
        load(key(), (err, data) => {
          pass.check(i, err, data);
          if (async) {
            loop(i + 1);
          } else {
            async = false;
            i++;
          }
        });
        if (async !== false) async = true;
      }
    }
    pass.begin();
    loop(0);
  },
};

main(variant, import.meta.url);
