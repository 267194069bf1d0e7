// Reactions of one promise run in registration order, also when added after it settled.
const log = (s) => () => console.log(s);
let resolveP;
const p = new Promise((r) => { resolveP = r; });
p.then(log('t1'));
p.then(log('t2'));
Promise.resolve().then(() => { console.log('resolving'); resolveP('v'); p.then(log('t4')); });
p.then(log('t3'));
Promise.resolve().then(log('b1')).then(log('b2')).then(log('b3'));
