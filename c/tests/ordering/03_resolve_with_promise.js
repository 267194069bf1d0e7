// Resolving a new promise with a settled promise takes two ticks before its reactions.
const log = (s) => () => console.log(s);
const p = new Promise((resolve) => resolve(Promise.resolve('y')));
p.then((v) => console.log('p ' + v));
Promise.resolve().then(log('b1')).then(log('b2')).then(log('b3')).then(log('b4'));
