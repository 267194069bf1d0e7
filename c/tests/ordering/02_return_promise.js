// A handler that returns a promise: the derived promise adopts it two ticks later.
const log = (s) => () => console.log(s);
Promise.resolve().then(() => { console.log('a1'); return Promise.resolve('x'); }).then((v) => console.log('a2 ' + v));
Promise.resolve().then(log('b1')).then(log('b2')).then(log('b3')).then(log('b4')).then(log('b5'));
