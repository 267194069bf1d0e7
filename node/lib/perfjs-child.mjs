// perfjs-child.mjs -- the child process of node/lib/perfjs.mjs: one variant
// of any workload run the way bluebird's benchmark/performance.js runs an
// implementation (see perfjs.mjs for what is measured).  The wrapper hands it
// the run through the environment (node/lib/wrapper.mjs); the counts go to
// the result file as JSON.
import { Pass, effectiveConcurrency, resourceUsage } from './contract.mjs';
import { childReport, childVariant } from './wrapper.mjs';

const KB = 1024;

/**
 * A timed pass as the harness sees it: at every completion it reads the RSS
 * (process.memoryUsage(), as the harness does) before the check, and the
 * N-th stamps the end.
 */
class SampledPass extends Pass {
  constructor(...args) {
    super(...args);
    this.rssMax = 0;
    this.end = 0n;
  }

  check(i, err, value) {
    this.rssMax = Math.max(this.rssMax, process.memoryUsage().rss);
    const verified = super.check(i, err, value);
    if (this.ok === this.n && this.end === 0n) this.end = process.hrtime.bigint();
    return verified;
  }
}

/** Runs a pass of the variant; then() runs once, from inside its last completion. */
function runThen(variant, pass, then) {
  let called = false;
  const once = () => {
    if (!called) {
      called = true;
      then();
    }
  };
  const ret = variant.run(pass, once);
  if (ret && typeof ret.then === 'function') ret.then(once, (err) => fail(`${err && err.message}`));
}

function fail(message) {
  childReport({ failure: message });
  process.exit(1);
}

// A promise, not a top-level await (Node has that only from 14.8): DESIGN section 11.
childVariant().then(({ variant, opts }) => {
  const { workload } = variant;
  const concurrency = effectiveConcurrency(variant.mode, opts.concurrency);

  let warmupStart = 0n;

  function timed() {
    const warmupNs = warmupStart === 0n ? 0 : Number(process.hrtime.bigint() - warmupStart);
    const pass = new SampledPass(workload, opts, opts.iterations, concurrency, fail);
    const cpu0 = process.cpuUsage();
    const start = process.hrtime.bigint();
    const rssStart = process.memoryUsage().rss;
    runThen(variant, pass, () => {
      const cpu = process.cpuUsage(cpu0);
      if (pass.ok !== pass.n) fail(`verified ${pass.ok} of ${pass.n} ${workload.unit}s before the variant said it was done`);
      const peakKb = resourceUsage().maxRSS;
      if (pass.rssMax > peakKb * KB) fail(`an RSS of ${pass.rssMax} bytes was sampled above the peak of ${peakKb} KiB`);
      childReport({
        ok: pass.ok,
        bytes: pass.bytes,
        concurrency,
        elapsed_ns: Number(pass.end - start),
        user_us: cpu.user,
        sys_us: cpu.system,
        peak_rss_kb: Math.max(peakKb, Math.floor(rssStart / KB)), // as in contract.mjs
        idle_rss_kb: Math.floor(rssStart / KB),
        workloadFields: workload.fields ? workload.fields(pass) : {},
        warmup_ns: warmupNs,
        // The harness's memory figure: the largest RSS sampled less the RSS at the start.
        sampled_rss_kb: Math.floor((pass.rssMax - rssStart) / KB),
      });
    });
    // The harness reads the RSS once more after its synchronous loop.
    pass.rssMax = Math.max(pass.rssMax, process.memoryUsage().rss);
  }

  if (opts.warmup > 0) {
    warmupStart = process.hrtime.bigint();
    runThen(variant, new Pass(workload, opts, opts.warmup, concurrency, (m) => fail(`warm-up ${m}`)), timed);
  } else {
    timed();
  }
});
