// sync-sequential -- the floor: load() is a plain function; the miss reads
// the file with fs.readFileSync.
import fs from 'node:fs';
import { main } from '../lib/contract.mjs';
import { Cache, cacheloop, settle } from './workload.mjs';

export const variant = {
  workload: cacheloop, style: 'sync', mode: 'sequential', backend: 'fs.readFileSync',
  run(pass, done) {
    const cache = new Cache();
    function load(name) {
      const res = cache.map.get(name);
      if (res) {
        cache.hits++;
        return res;
      }
      cache.misses++;
      const data = fs.readFileSync(name);
      cache.map.set(name, data);
      return data;
    }
    pass.begin();
    for (let i = 0; i < pass.n; i++) pass.check(i, null, load(pass.file));
    settle(pass, cache);
    done();
  },
};

main(variant, import.meta.url);
