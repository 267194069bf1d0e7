// callback-nexttick-sequential -- seed 002's first program: a hit answers
// through process.nextTick, the miss through fs.readFile's callback; the loop
// is loop(i) called again from each callback.
import fs from 'fs';
import { main } from '../lib/contract.mjs';
import { cacheKey, cacheloop, newCache, settle } from './workload.mjs';

export const variant = {
  workload: cacheloop, style: 'callback', shape: 'nexttick', mode: 'sequential', backend: 'fs.readFile',
  run(pass, done) {
    const cache = newCache(pass);
    const key = cacheKey(pass);
    function load(name, cb) {
      const res = cache.get(name);
      if (res) {
        process.nextTick(() => {
          cache.hits++;
          cb(null, res);
        });
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
      if (i === pass.n) {
        settle(pass, cache);
        done();
        return;
      }
      load(key(), (err, data) => {
        pass.check(i, err, data);
        loop(i + 1);
      });
    }
    pass.begin();
    loop(0);
  },
};

main(variant, import.meta.url);
