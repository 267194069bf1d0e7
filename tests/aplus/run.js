'use strict';
// run.js -- runs the whole Promises/A+ suite against adapter.js; mocha's own
// summary ("N passing", "N failing") is printed; exits 1 on any failure.
const promisesAplusTests = require('promises-aplus-tests');
const adapter = require('./adapter.js');

promisesAplusTests(adapter, { reporter: process.env.APLUS_REPORTER || 'dot' }, (err) => {
  if (err) {
    console.error('Promises/A+: the C core failed the suite');
    process.exit(1);
  }
  console.log('Promises/A+: every test passed');
});
