// promise-sequential -- load() returns a promise: Promise.resolve of the
// cached content on a hit, a promise of fs.readFile's result on the miss;
// the loop is a .then chain (the reaction to load i starts load i + 1).
import fs from 'fs';
import { main } from '../lib/contract.mjs';
import { cacheKey, cacheloop, newCache, settle } from './workload.mjs';

export const variant = {
  workload: cacheloop, style: 'promise', mode: 'sequential', backend: 'fs.readFile',
  run(pass, done) {
    const cache = newCache(pass);
    const key = cacheKey(pass);
    function load(name) {
      const res = cache.get(name);
      if (res) {
        cache.hits++;
        return Promise.resolve(res);
      }
      return new Promise((resolve, reject) => {
        fs.readFile(name, (err, data) => {
          if (err) return reject(err);
          cache.misses++;
          cache.set(name, data);
          resolve(data);
        });
      });
    }
    function loop(i) {
      if (i === pass.n) {
        settle(pass, cache);
        done();
        return;
      }
      load(key()).then((data) => {
        pass.check(i, null, data);
        loop(i + 1);
      }, (err) => pass.check(i, err));
    }
    pass.begin();
    loop(0);
  },
};

main(variant, import.meta.url);
