// httpchain.mjs -- httpchain's server in Node (http.createServer), the same
// protocol as build/bin/c-httpchain-server: GET /a -> "/b", /b -> "/c",
// /c -> "/d", 404 otherwise; 127.0.0.1 only, on --port P (default 0: a free
// port); prints {"port":N} when ready; stops on SIGTERM, SIGINT or the end
// of its stdin when that is a pipe (the runner holds the other end).
// Exit 2: a bad flag; 3: the port cannot be bound.
import http from 'http';
import fs from 'fs';

const NEXT = { '/a': '/b', '/b': '/c', '/c': '/d' };
const args = process.argv.slice(2);
let port = 0;
for (let k = 0; k < args.length; k++) {
  if (args[k] === '--port' && k + 1 < args.length && /^[0-9]+$/.test(args[k + 1]) && Number(args[k + 1]) <= 65535) {
    port = Number(args[++k]);
  } else {
    process.stderr.write(`node/servers/httpchain.mjs: unknown or bad argument "${args[k]}"\nusage: server.mjs [--port P]\n`);
    process.exit(2);
  }
}

const server = http.createServer((req, res) => {
  const next = req.method === 'GET' ? NEXT[req.url] : undefined;
  res.setHeader('Content-Type', 'text/plain');
  if (next === undefined) {
    res.statusCode = 404;
    res.end('not found');
  } else {
    res.end(next);
  }
});
server.keepAliveTimeout = 60000;

// closeAllConnections is Node 18.2's: before it the server keeps its own list of
// open sockets to end them at stop (DESIGN section 11); from 18.2 on it keeps none.
const sockets = server.closeAllConnections ? null : new Set();
if (sockets) {
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
}

const stop = () => {
  server.close();
  if (sockets) for (const socket of sockets) socket.destroy();
  else server.closeAllConnections();
  process.stdin.destroy();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
server.on('error', (err) => {
  process.stderr.write(`node/servers/httpchain.mjs: cannot listen on 127.0.0.1:${port}: ${err.code}\n`);
  process.exit(3);
});
server.listen(port, '127.0.0.1', () => {
  fs.writeSync(1, JSON.stringify({ port: server.address().port }) + '\n');
  if (fs.fstatSync(0).isFIFO()) {
    process.stdin.on('end', stop);
    process.stdin.on('error', stop);
    process.stdin.resume();
  }
});
