// workload.mjs -- httpchain for the Node.js variants (seed 001): a chain of
// three GETs on 127.0.0.1, each path the previous response's body, /a -> /b
// -> /c -> /d.  Every response is checked here (status 200, body = the next
// path) before a style sees it, so the styles differ only in how they chain
// the three requests; the verifier checks that a chain ended at /d.
//
// --backend names the server and the agent: <server>.<agent>, the server one
// of cserver, nodeserver, goserver (which program answers on --port), the
// agent keepalive (an http.Agent with keepAlive: true, Node 19+'s global
// agent) or close (keepAlive: false: a connection per request with
// Connection: close, what seed 001's Node 8 did).
import http from 'http';
import path from 'path';
import { defineWorkload, programName, say, EXIT_ENV, EXIT_USAGE } from '../lib/contract.mjs';

/** What this program's lines on stderr start with, as the contract's own do. */
const prog = () => (process.argv[1] ? programName(path.resolve(process.argv[1])) : 'httpchain');

export const FIRST = '/a';
export const LAST = '/d';
export const NEXT = { '/a': '/b', '/b': '/c', '/c': '/d' };
const SERVERS = ['cserver', 'nodeserver', 'goserver'];
const AGENTS = ['keepalive', 'close'];

function backendProblem(value) {
  const [server, agent, more] = value.split('.');
  return SERVERS.includes(server) && AGENTS.includes(agent) && more === undefined ? null
    : `--backend must be <server>.<agent> with a server of ${SERVERS.join(', ')} and an agent of ${AGENTS.join(', ')}, got "${value}"`;
}

/**
 * The --backend of the command line, read before the contract parses it: the
 * variant's id carries it.  A bad one is the contract's usage error later.
 */
export function backendArg(argv = process.argv.slice(2), fallback = 'cserver.keepalive') {
  for (let k = 0; k < argv.length; k++) {
    if (argv[k] === '--backend' && k + 1 < argv.length) return backendProblem(argv[k + 1]) ? fallback : argv[k + 1];
    if (argv[k].startsWith('--backend=')) {
      const v = argv[k].slice('--backend='.length);
      return backendProblem(v) ? fallback : v;
    }
  }
  return fallback;
}

export const httpchain = defineWorkload({
  name: 'httpchain',
  unit: 'chain',
  flags: {
    port: {
      value: '', arg: 'P', about: "the server's port on 127.0.0.1 (required; the runner passes it)",
      validate: (v) => (/^[0-9]+$/.test(v) && Number(v) >= 1 && Number(v) <= 65535 ? null
        : `--port needs the server's port, 1 to 65535, got "${v}"`),
    },
    'stall-ms': {
      value: '10000', arg: 'MS', about: 'a response not complete within MS milliseconds of its request fails the run (exit 3)',
      validate: (v) => (/^[0-9]+$/.test(v) && Number(v) >= 1 && Number(v) <= 3600000 ? null : `--stall-ms takes 1 to 3600000 milliseconds, got "${v}"`),
    },
    backend: { value: 'cserver.keepalive', arg: 'SERVER.AGENT', about: 'which server answers, and the agent (keepalive or close)', validate: backendProblem },
  },
  setup(opts) {
    if (opts.port === '') {
      say(`${prog()}: --port needs the server's port (start build/bin/c-httpchain-server; it prints {"port":N})`);
      process.exit(EXIT_USAGE);
    }
    return null;
  },
  verifier() {
    // Every chain's bodies are 2 bytes each: "/b", "/c", "/d".
    return (i, last) => (last === LAST ? 6 : `the chain ended at "${last}", expected "${LAST}"`);
  },
});

/** The agent of a pass: keep-alive or a connection per request. */
export function agentFor(pass) {
  return new http.Agent({ keepAlive: pass.backend.endsWith('.keepalive') });
}

/** Nothing answers on the port: the environment, not a wrong answer (exit 3). */
function refused(err, port) {
  say(`${prog()}: cannot connect to 127.0.0.1:${port}: ${err.code} (is the server running?)`);
  process.exit(EXIT_ENV);
}

/** No descriptor left for a connection: the open-file limit, not the server (exit 3). */
function tooManyFiles(err, path) {
  say(`${prog()}: GET ${path}: ${err.code}, too many open files: each connection in flight needs one; raise ulimit -n or lower K`);
  process.exit(EXIT_ENV);
}

/**
 * GET path (t: target(pass)) with a callback, as seed 001's makeRequest: cb(err) or cb(null,
 * body) once the response ended and was checked (status 200, body = the next
 * path).  cb is called exactly once.
 */
export function get(t, path, cb) {
  const { agent, port, stallMs } = t;
  let called = false;
  // --stall-ms is a deadline on the whole response (DESIGN section 3), not
  // req.setTimeout's idle time, which a server dripping a byte now and then
  // resets forever.
  const deadline = setTimeout(() => {
    say(`${prog()}: GET ${path}: no complete response within ${stallMs} ms (the server does not answer, or not in full)`);
    process.exit(EXIT_ENV);
  }, stallMs);
  const once = (err, body) => {
    if (called) return;
    called = true;
    clearTimeout(deadline);
    cb(err, body);
  };
  const req = http.request({ host: '127.0.0.1', port, path, agent, method: 'GET' }, (res) => {
    const data = [];
    res.on('data', (chunk) => data.push(chunk));
    res.on('error', once);
    res.on('aborted', () => once(new Error(`GET ${path}: the server closed the connection mid-response`)));
    res.on('end', () => {
      const body = Buffer.concat(data).toString('latin1');
      if (res.statusCode !== 200) once(new Error(`GET ${path}: status ${res.statusCode}, expected 200`));
      else if (body !== NEXT[path]) once(new Error(`GET ${path}: body "${body.slice(0, 40)}", expected "${NEXT[path]}"`));
      else once(null, body);
    });
  });
  req.on('error', (err) => {
    if (err.code === 'ECONNREFUSED') refused(err, port);
    if (err.code === 'EMFILE' || err.code === 'ENFILE') tooManyFiles(err, path);
    once(err.code === 'ECONNRESET' ? new Error(`GET ${path}: the server closed the connection (${err.code})`) : err);
  });
  req.end();
}

/** GET path as a promise (seed 001's promise version of makeRequest). */
export function getPromise(t, path) {
  return new Promise((resolve, reject) => {
    get(t, path, (err, body) => (err ? reject(err) : resolve(body)));
  });
}

/** What a pass's requests need: the agent, the port and the stall limit. */
export function target(pass) {
  return { agent: agentFor(pass), port: Number(pass.port), stallMs: Number(pass.stallMs) };
}
