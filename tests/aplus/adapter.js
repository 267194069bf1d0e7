'use strict';
// adapter.js -- the Promises/A+ adapter object over the C core's Node-API
// module (adapter.c): resolved, rejected, deferred.  The core's microtask
// queue is drained from a JS microtask whenever the module asks for it.
const path = require('path');

const addon = process.env.APLUS_ADDON || path.join(__dirname, '..', '..', 'build', 'aplus', 'aplus.node');
const core = require(addon);

core.init(() => queueMicrotask(core.drain));

module.exports = {
  resolved: core.resolved,
  rejected: core.rejected,
  deferred: core.deferred,
};
