// A thenable is adopted: its then is called from a microtask, then one more tick.
const log = (s) => () => console.log(s);
const thenable = { then(onFulfilled) { console.log('then called'); onFulfilled('t'); } };
Promise.resolve().then(() => thenable).then((v) => console.log('got ' + v));
Promise.resolve(thenable).then((v) => console.log('direct ' + v));
Promise.resolve().then(log('b1')).then(log('b2')).then(log('b3')).then(log('b4'));
