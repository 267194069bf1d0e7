// A rejection passes through a then without a rejection handler, one tick per link.
const log = (s) => () => console.log(s);
Promise.reject(new Error('boom')).then(log('never')).catch((e) => console.log('caught ' + e.message)).then(log('after'));
Promise.resolve().then(log('b1')).then(log('b2')).then(log('b3')).then(log('b4'));
