// finally passes the value on, but costs extra ticks; a rejecting finally overrides.
const log = (s) => () => console.log(s);
Promise.resolve('v').finally(log('f1')).then((v) => console.log('after finally ' + v));
Promise.resolve('w').finally(() => { console.log('f2'); return Promise.reject(new Error('override')); })
  .catch((e) => console.log('f2 caught ' + e.message));
Promise.resolve().then(log('b1')).then(log('b2')).then(log('b3')).then(log('b4')).then(log('b5')).then(log('b6'));
