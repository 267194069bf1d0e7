// lib/seed001.cjs -- seed 001's own program, the child of
// node/httpchain/lib/datenow.mjs: CommonJS and plain enough for the seed's
// Node 8 (no BigInt, no ES modules, no syntax after Node 8's).
//
//   ASYNCSTYLES_OPTIONS='{...}' ASYNCSTYLES_RESULT=FILE node seed001.cjs callback|await
//
// What the seed's programs did: a chain is three GETs on 127.0.0.1, each path
// the previous body (/a -> /b -> /c -> /d), through an agent that opens a
// connection per request (Node 8's default; keep-alive when --backend says
// so); the callback version nests them (makeRequest), the promise version is
// an async getData awaiting a promise-returning makeRequest three times.  One
// loop runs the --warmup chains and then N more, each started from a
// process.nextTick after the one before ended; each chain is timed on its own
// from just before its getData to its callback, the first --warmup chains are
// dropped and the others' times summed.  The seed read Date.now() at those
// two points; this reads the monotonic clock there, and the sum is the
// line's elapsed_ns.  Unlike the seed, every response is checked (status 200,
// the body the next path) and every chain must end at /d.
//
// The options are the contract's, parsed and checked by the wrapper
// (iterations, warmup, port, stallMs, backend).  The result file gets the
// counts as JSON, or { failure, exit } with one sentence: exit 1 for a wrong
// or broken answer, 3 for the environment (nothing listens on the port, a
// response not complete within --stall-ms, no file descriptor left).
'use strict';
const fs = require('fs');
const http = require('http');
const v8 = require('v8');

const NEXT = { '/a': '/b', '/b': '/c', '/c': '/d' };
const EXIT_VERIFY = 1;
const EXIT_ENV = 3;

const opts = JSON.parse(process.env.ASYNCSTYLES_OPTIONS || '{}');
const style = process.argv[2];
const port = Number(opts.port);
const stallMs = Number(opts.stallMs);
const keepAlive = /\.keepalive$/.test(opts.backend || '');

/** Reports to the wrapper and ends the process. */
function report(fields, code) {
  fs.writeFileSync(process.env.ASYNCSTYLES_RESULT, JSON.stringify(fields));
  process.exit(code);
}

function failed(sentence, code) {
  report({ failure: sentence, exit: code }, code);
}

/** The peak resident set (VmHWM, KiB) and the minor page faults, from /proc/self as Node 8 has no resourceUsage. */
function usage() {
  if (process.resourceUsage) {
    const u = process.resourceUsage();
    return { peakKb: u.maxRSS, faults: u.minorPageFault };
  }
  const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync('/proc/self/status', 'utf-8'));
  const stat = fs.readFileSync('/proc/self/stat', 'utf-8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { peakKb: hwm ? Number(hwm[1]) : 0, faults: Number(fields[7]) };
}

/** Nanoseconds since an earlier process.hrtime(). */
function since(t) {
  const d = process.hrtime(t);
  return d[0] * 1e9 + d[1];
}

// The agent is the program's, as the seed's global agent was: made before any chain.
const agent = new http.Agent({ keepAlive: keepAlive });

/**
 * GET path, as the seed's makeRequest: callback(err) or callback(undefined,
 * body) once the response ended and was checked.  --stall-ms is a deadline on
 * the whole response (DESIGN section 3).  The checks and the words are
 * workload.mjs's get(), written again: this CommonJS file cannot load that ES
 * module on Node 8, nor can the ES modules load a .cjs file on Node 10.
 */
function makeRequest(path, callback) {
  let called = false;
  const deadline = setTimeout(() => {
    failed(`GET ${path}: no complete response within ${stallMs} ms (the server does not answer, or not in full)`, EXIT_ENV);
  }, stallMs);
  const once = (err, body) => {
    if (called) return;
    called = true;
    clearTimeout(deadline);
    callback(err, body);
  };
  const req = http.request({ host: '127.0.0.1', port: port, path: path, method: 'GET', agent: agent }, (res) => {
    const data = [];
    res.on('data', (buffer) => { data.push(buffer); });
    res.on('error', once);
    res.on('aborted', () => once(new Error(`GET ${path}: the server closed the connection mid-response`)));
    res.on('end', () => {
      const body = Buffer.concat(data).toString('latin1');
      if (res.statusCode !== 200) once(new Error(`GET ${path}: status ${res.statusCode}, expected 200`));
      else if (body !== NEXT[path]) once(new Error(`GET ${path}: body "${body.slice(0, 40)}", expected "${NEXT[path]}"`));
      else once(undefined, body);
    });
  });
  req.on('error', (err) => {
    if (err.code === 'ECONNREFUSED') failed(`cannot connect to 127.0.0.1:${port}: ${err.code} (is the server running?)`, EXIT_ENV);
    if (err.code === 'EMFILE' || err.code === 'ENFILE') {
      failed(`GET ${path}: ${err.code}, too many open files: raise ulimit -n`, EXIT_ENV);
    }
    once(err.code === 'ECONNRESET' ? new Error(`GET ${path}: the server closed the connection (${err.code})`) : err);
  });
  req.end();
}

/** The seed's promise version of makeRequest. */
function makeRequestPromise(path) {
  return new Promise((resolve, reject) => {
    makeRequest(path, (err, body) => (err ? reject(err) : resolve(body)));
  });
}

/** The seed's callback getData: the three GETs nested. */
function getDataCallback(callback) {
  makeRequest('/a', (err, path1) => {
    if (err) return callback(err);
    makeRequest(path1, (err2, path2) => {
      if (err2) return callback(err2);
      makeRequest(path2, (err3, path3) => {
        if (err3) return callback(err3);
        callback(undefined, path3);
      });
    });
  });
}

/** The seed's async getData: three awaits, then the callback. */
async function getDataAwait(callback) {
  let path;
  try {
    path = await makeRequestPromise('/a');
    path = await makeRequestPromise(path);
    path = await makeRequestPromise(path);
  } catch (e) {
    callback(e);
    return;
  }
  callback(undefined, path);
}

const getData = { callback: getDataCallback, await: getDataAwait }[style];
if (!getData) failed(`unknown style "${style}" (callback or await)`, EXIT_VERIFY);

const warmup = Number(opts.warmup) || 0;
const n = Number(opts.iterations);
const warmupStart = process.hrtime();
let ok = 0;
let elapsedNs = 0;
let warmupNs = 0;
let idleRssKb = 0;
let cpu0 = null;
let preclock = null;

/** The seed's loop: chain i of warmup + n, the first warmup dropped. */
function loop(i) {
  if (i === warmup + n) return finish();
  if (i === warmup) {
    // The timed chains start here, with nothing made for them ahead: what
    // the pass does before its first chain (preclock) is these lines' own.
    warmupNs = since(warmupStart);
    idleRssKb = usage().peakKb;
    cpu0 = process.cpuUsage();
    const mark = { heap: v8.getHeapStatistics().used_heap_size, faults: usage().faults };
    preclock = {
      heapBytes: Math.max(0, v8.getHeapStatistics().used_heap_size - mark.heap),
      faults: Math.max(0, usage().faults - mark.faults),
    };
  }
  const start = process.hrtime();
  getData((err, last) => {
    const ns = since(start);
    const which = i < warmup ? `warm-up iteration ${i}` : `iteration ${i - warmup}`;
    if (err) failed(`${which}: chain failed: ${[err.code, err.message].filter(Boolean).join(' ')}`, EXIT_VERIFY);
    if (last !== '/d') failed(`${which}: the chain ended at "${last}", expected "/d"`, EXIT_VERIFY);
    if (i >= warmup) {
      elapsedNs += ns;
      ok++;
    }
    process.nextTick(() => loop(i + 1));
  });
}

function finish() {
  const cpu = process.cpuUsage(cpu0);
  agent.destroy();
  report({
    ok: ok,
    bytes: 6 * ok,
    concurrency: 1,
    elapsed_ns: Math.round(elapsedNs),
    user_us: cpu.user,
    sys_us: cpu.system,
    peak_rss_kb: Math.max(usage().peakKb, idleRssKb),
    idle_rss_kb: idleRssKb,
    preclock: preclock,
    warmup_ns: warmupNs,
    workloadFields: {},
  }, 0);
}

loop(0);
