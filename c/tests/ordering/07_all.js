// Promise.all keeps input order, waits for a later resolution, and resolves [] at once.
const log = (s) => () => console.log(s);
let resolveC;
const a = Promise.resolve('a');
const c = new Promise((r) => { resolveC = r; });
Promise.all([c, a]).then((vs) => console.log('all ' + vs.join(',')));
Promise.all([]).then((vs) => console.log('all empty ' + vs.length));
Promise.all([a, Promise.reject(new Error('first')), Promise.reject(new Error('second'))])
  .catch((e) => console.log('all rejected ' + e.message));
Promise.resolve().then(() => { console.log('resolve c'); resolveC('c'); }).then(log('b2')).then(log('b3'));
