#!/usr/bin/env node
// The `legion` command as npm links it. This file is in git, so `npm ci` in a fresh clone links the
// command before anything is built; the program itself is the bundle `npm run build` writes to
// ../dist (see docs/design/cli-binary.md). CommonJS (./package.json), as dist/legion.js
// is: an ES module as the main file makes Node start its ES module loader first, some 4 ms of CPU.
'use strict';
const { join } = require('node:path');

const program = join(__dirname, '..', 'dist', 'legion.js');
try {
  require(program);
} catch (error) {
  // Only the program's own file missing; a module missing inside it is another error, shown as it is.
  if (error?.code === 'MODULE_NOT_FOUND' && String(error.message).startsWith(`Cannot find module '${program}'`)) {
    process.stderr.write('legion: the command is not built yet. Run "npm run build" in the Legion repository first.\n');
    process.exit(1);
  }
  throw error;
}
