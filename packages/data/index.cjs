// The world snapshot shipped in this package: @ipintel/core's open() finds it without a path.
'use strict';
/** Absolute path of the snapshot file in this package. */
exports.snapshotPath = require('node:path').join(__dirname, 'world.ipintel');
