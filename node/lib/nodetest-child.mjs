// nodetest-child.mjs -- one variant of any workload as a node:test test file,
// the way seed 000 measured its variants (`node --test <file>`).  The timed
// work is the variant file's own run(), checked by the contract's Pass, so
// the two methods differ only in what surrounds it.  (Its name keeps it out
// of `node --test node/`, which runs only the unit tests.)
//
// node/lib/nodetest.mjs starts this file under `node --test` and hands it
// the run through the environment (node/lib/wrapper.mjs).  The test runner
// owns this process's stdout, so the counts go to the result file as JSON
// for nodetest.mjs to check and report.
import test from 'node:test';
import assert from 'assert';
import { effectiveConcurrency, measure, resourceUsage } from './contract.mjs';
import { childReport, childVariant } from './wrapper.mjs';

const { variant, opts } = await childVariant();
const concurrency = effectiveConcurrency(variant.mode, opts.concurrency);

// A failed check ends the file at once, as in the suite's own programs; the
// message reaches nodetest.mjs through the result file.
function failed(message) {
  childReport({ failure: message });
  process.exit(1);
}

test(`${opts.iterations} ${variant.workload.unit}s: ${variant.style} ${variant.mode} on ${variant.backend}`, async () => {
  const { pass, idleRssKb, warmupNs } = await measure(variant, opts, concurrency, failed);
  assert.strictEqual(pass.ok, opts.iterations);
  const cpu = process.cpuUsage(); // the whole life of this process
  childReport({
    ok: pass.ok,
    bytes: pass.bytes,
    concurrency,
    user_us: cpu.user,
    sys_us: cpu.system,
    peak_rss_kb: Math.max(resourceUsage().maxRSS, idleRssKb), // as in contract.mjs
    idle_rss_kb: idleRssKb,
    preclock: pass.preclock,
    warmup_ns: warmupNs,
    workloadFields: variant.workload.fields ? variant.workload.fields(pass) : {},
  });
});
