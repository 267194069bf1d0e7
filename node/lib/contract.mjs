// contract.mjs -- the program contract (DESIGN section 3) for the Node.js
// variants: flags, the fixture check, untimed warm-up, in-process timing,
// verification of every completion, the one JSON line and the exit codes.
//
// A variant file describes itself and hands over to main():
//
//   export const variant = { name: 'callback-parallel', style: 'callback',
//     mode: 'parallel', backend: 'fs.readFile', run(pass, done) { ... } };
//   main(variant, import.meta.url);
//
// run(pass, done) issues pass.n reads of pass.file, reports each completion
// with pass.check(i, err, data), and either calls done() or returns a promise
// that settles after its last completion.  The clock stops inside check()
// when the n-th completion verifies, so how a style signals the end is not
// timed.  A failed check ends the process at once with exit code 1 and one
// line on stderr naming the iteration, which is why styles need no error
// paths of their own beyond routing errors into check().

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const EXIT_OK = 0;
export const EXIT_VERIFY = 1;
export const EXIT_USAGE = 2;
export const EXIT_ENV = 3;

// The default bound of a bounded variant when --concurrency is 0.
export const DEFAULT_BOUND = 64;

const DEFAULTS = {
  iterations: 10000,
  file: 'fixtures/text.txt',
  expect: 'Hello, world',
  concurrency: 0,
  warmup: 0,
};

const COUNT_FLAGS = new Set(['iterations', 'concurrency', 'warmup']);
const TEXT_FLAGS = new Set(['file', 'expect']);

/** One line on stderr, written synchronously so it survives process.exit(). */
export function say(message) {
  fs.writeSync(2, message.endsWith('\n') ? message : message + '\n');
}

export function usageText(prog, operand = '') {
  return [
    `usage: ${prog}${operand ? ' ' + operand : ''} [--iterations N] [--file PATH] [--expect TEXT] [--concurrency K] [--warmup N]`,
    `  --iterations N   reads in the timed section, a positive integer (default ${DEFAULTS.iterations})`,
    `  --file PATH      the fixture, relative to the working directory (default ${DEFAULTS.file})`,
    `  --expect TEXT    the exact content every read must return (default "${DEFAULTS.expect}")`,
    `  --concurrency K  reads in flight for bounded variants; 0 means ${DEFAULT_BOUND} there (default 0)`,
    `  --warmup N       untimed reads before the timed section (default 0)`,
    `  --help           this text`,
  ].join('\n');
}

/** A usage error: a message for stderr and exit code 2. */
export class UsageError extends Error {}

/**
 * Parses the flags of DESIGN section 3 (`--name value` or `--name=value`).
 * Returns the options, or { help: true } for --help; throws UsageError.
 */
export function parseArgs(args) {
  const opts = { ...DEFAULTS };
  for (let k = 0; k < args.length; k++) {
    const arg = args[k];
    if (arg === '--help' || arg === '-h') return { help: true };
    const m = /^--?([a-z]+)(?:=(.*))?$/s.exec(arg);
    if (!m) throw new UsageError(`unexpected argument "${arg}"`);
    const name = m[1];
    if (!COUNT_FLAGS.has(name) && !TEXT_FLAGS.has(name)) {
      throw new UsageError(`unknown flag "${arg}"`);
    }
    let value = m[2];
    if (value === undefined) {
      if (k + 1 >= args.length) throw new UsageError(`--${name} needs a value`);
      value = args[++k];
    }
    if (COUNT_FLAGS.has(name)) {
      if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(Number(value))) {
        throw new UsageError(`--${name} must be a ${name === 'iterations' ? 'positive' : 'non-negative'} integer, got "${value}"`);
      }
      opts[name] = Number(value);
    } else {
      opts[name] = value;
    }
  }
  if (opts.iterations < 1) {
    throw new UsageError(`--iterations must be a positive integer, got ${opts.iterations}`);
  }
  if (opts.file === '') throw new UsageError('--file must name the fixture');
  return opts;
}

/** Names the type of a file that is neither regular nor a directory. */
function fileKind(st) {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/**
 * Returns null when `file` is a regular file this process can read, else a
 * sentence saying what is wrong and how to fix it (an environment error).
 */
export function fixtureProblem(file) {
  let st;
  try {
    st = fs.statSync(file);
  } catch (err) {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') {
      return `fixture ${file} is missing: run from the project root or pass --file PATH`;
    }
    return `fixture ${file} cannot be examined: ${err.message}`;
  }
  if (st.isDirectory()) return `fixture ${file} is a directory: pass --file with a regular file`;
  // Opening a FIFO blocks until a writer comes: refuse anything but a regular file first.
  if (!st.isFile()) return `fixture ${file} is ${fileKind(st)}; --file must name a regular file`;
  try {
    fs.closeSync(fs.openSync(file, 'r'));
  } catch (err) {
    return `fixture ${file} is unreadable: ${err.code || err.message} (fix its permissions)`;
  }
  return null;
}

/**
 * One pass (warm-up or timed) over n reads.  check() verifies a completion;
 * the n-th verified one stamps the end of the timed section.
 */
export class Pass {
  constructor(opts, n, concurrency, onFailure) {
    this.file = opts.file;
    this.expect = opts.expect;
    this.expectBytes = Buffer.byteLength(opts.expect, 'utf-8');
    this.n = n;
    this.concurrency = concurrency;
    this.ok = 0;
    this.bytes = 0;
    this.t0 = 0n;
    this.t1 = 0n;
    this.onFailure = onFailure;
  }

  /** Stamps the start of the timed section, just before the first read. */
  begin() {
    this.t0 = process.hrtime.bigint();
  }

  /**
   * Verifies the completion of iteration i: no error and exactly the expected
   * text.  Returns true when it verified; otherwise reports the failure.
   */
  check(i, err, data) {
    if (err) return this.fail(i, `read failed: ${err.code || ''} ${err.message}`.trim());
    if (data !== this.expect) {
      return this.fail(i, `read ${JSON.stringify(data)}, expected ${JSON.stringify(this.expect)}`);
    }
    this.bytes += this.expectBytes;
    if (++this.ok === this.n) this.t1 = process.hrtime.bigint();
    return true;
  }

  /** Reports the first failure; i is null when the style cannot tell which read. */
  fail(i, reason) {
    this.onFailure(i === null ? `a read: ${reason}` : `iteration ${i}: ${reason}`);
    return false;
  }
}

/** Runs one pass of the variant; resolves when the style says it is done. */
export function runPass(variant, pass) {
  return new Promise((resolve, reject) => {
    const ret = variant.run(pass, resolve);
    if (ret && typeof ret.then === 'function') ret.then(resolve, reject);
  });
}

/** The concurrency a variant runs with, as the result line reports it. */
export function effectiveConcurrency(mode, requested) {
  if (mode === 'sequential') return 1;
  if (mode === 'bounded') return requested > 0 ? requested : DEFAULT_BOUND;
  return 0; // parallel: every read in flight at once
}

export function runtimeName() {
  return `node ${process.version} (libuv ${process.versions.uv})`;
}

/** The contract's JSON line, fields in the order of DESIGN section 3. */
export function resultLine(variant, fields) {
  return JSON.stringify({
    workload: 'readfile',
    lang: 'node',
    style: variant.style,
    mode: variant.mode,
    backend: variant.backend,
    variant: variant.id || `node/${variant.name}`,
    iterations: fields.iterations,
    concurrency: fields.concurrency,
    ok: fields.ok,
    bytes: fields.bytes,
    elapsed_ns: fields.elapsed_ns,
    user_us: fields.user_us,
    sys_us: fields.sys_us,
    peak_rss_kb: fields.peak_rss_kb,
    runtime: fields.runtime || runtimeName(),
  });
}

/**
 * Parses the command line (operand names what precedes the flags in the
 * usage line, if anything) or ends the process: prints usage and exits 0 for
 * --help, 2 for a usage error, 3 when the fixture is not a readable file.
 */
export function optionsOrExit(prog, args, operand = '') {
  let opts;
  try {
    opts = parseArgs(args);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    say(`${prog}: ${err.message}\n${usageText(prog, operand)}`);
    process.exit(EXIT_USAGE);
  }
  if (opts.help) {
    fs.writeSync(1, usageText(prog, operand) + '\n');
    process.exit(EXIT_OK);
  }
  const problem = fixtureProblem(opts.file);
  if (problem) {
    say(`${prog}: ${problem}`);
    process.exit(EXIT_ENV);
  }
  return opts;
}

/** True when moduleUrl is the script node was started with. */
export function isEntry(moduleUrl) {
  return Boolean(process.argv[1]) && path.resolve(process.argv[1]) === fileURLToPath(moduleUrl);
}

/**
 * The whole life of a variant program.  Does nothing unless moduleUrl is the
 * entry script, so the same file can be imported (by the node --test method).
 */
export async function main(variant, moduleUrl) {
  if (!isEntry(moduleUrl)) return;
  const prog = `node/readfile/${variant.name}.mjs`;
  const opts = optionsOrExit(prog, process.argv.slice(2));
  const concurrency = effectiveConcurrency(variant.mode, opts.concurrency);
  const failed = (what) => (message) => {
    say(`${prog}: ${what}${message}`);
    process.exit(EXIT_VERIFY);
  };

  if (opts.warmup > 0) {
    const warm = new Pass(opts, opts.warmup, concurrency, failed('warm-up '));
    await runPass(variant, warm);
  }

  const pass = new Pass(opts, opts.iterations, concurrency, failed(''));
  const cpu0 = process.cpuUsage();
  pass.begin();
  await runPass(variant, pass);
  const cpu = process.cpuUsage(cpu0);

  if (pass.ok !== pass.n) {
    say(`${prog}: verified ${pass.ok} of ${pass.n} reads before the variant said it was done`);
    process.exit(EXIT_VERIFY);
  }
  fs.writeSync(1, resultLine(variant, {
    iterations: pass.n,
    concurrency,
    ok: pass.ok,
    bytes: pass.bytes,
    elapsed_ns: Number(pass.t1 - pass.t0),
    user_us: cpu.user,
    sys_us: cpu.system,
    peak_rss_kb: process.resourceUsage().maxRSS,
  }) + '\n');
}
