// sync-sequential -- the floor: load() is a plain function; the miss reads
// the file with fs.readFileSync.
import fs from 'fs';
import { main } from '../lib/contract.mjs';
import { cacheKey, cacheloop, newCache, settle } from './workload.mjs';

export const variant = {
  workload: cacheloop, style: 'sync', mode: 'sequential', backend: 'fs.readFileSync',
  run(pass, done) {
    const cache = newCache(pass);
    const key = cacheKey(pass);
    function load(name) {
      const res = cache.get(name);
      if (res) {
        cache.hits++;
        return res;
      }
      cache.misses++;
      const data = fs.readFileSync(name);
      cache.set(name, data);
      return data;
    }
    pass.begin();
    for (let i = 0; i < pass.n; i++) pass.check(i, null, load(key()));
    settle(pass, cache);
    done();
  },
};

main(variant, import.meta.url);
