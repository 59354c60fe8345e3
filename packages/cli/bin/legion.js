#!/usr/bin/env node
// The `legion` command as npm links it. This file is in git, so `npm ci` in a fresh clone links the
// command before anything is built; the program itself is the bundle `npm run build` writes to
// ../dist (see ../README.md, "How the binary is built").
try {
  await import('../dist/legion.js');
} catch (error) {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/legion.js')) {
    process.stderr.write('legion: the command is not built yet. Run "npm run build" in the Legion repository first.\n');
    process.exit(1);
  }
  throw error;
}
