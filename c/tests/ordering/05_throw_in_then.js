// A handler that throws rejects the derived promise; finally runs on the way.
const log = (s) => () => console.log(s);
Promise.resolve()
  .then(() => { console.log('a1'); throw new Error('bad'); })
  .then(log('skipped'), (e) => console.log('a2 ' + e.message))
  .finally(log('fin'))
  .then(log('a3'));
Promise.resolve().then(log('b1')).then(log('b2')).then(log('b3')).then(log('b4')).then(log('b5')).then(log('b6'));
