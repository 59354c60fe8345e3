// Preloaded with --import by bundle-cli.test.ts: records the URL of every module the process
// loads, one a line, in the file named by LEGION_TEST_LOADED — through Node's module hooks (which
// run on a thread of their own) for what Node's loader loads, and through fs.readFileSync for the
// bundle's CommonJS files, which dist/legion.js reads and compiles itself (src/compile-cache.ts),
// and, at exit, Node's built-in modules the process loaded.
import fs from 'node:fs';
import { register } from 'node:module';
import { pathToFileURL } from 'node:url';

if (process.env.LEGION_TEST_LOADED) {
  register('./record-loads-hooks.mjs', import.meta.url);
  const record = process.env.LEGION_TEST_LOADED;
  const readFileSync = fs.readFileSync;
  fs.readFileSync = function recordingReadFileSync(file, ...rest) {
    if (typeof file === 'string' && file.endsWith('.js')) fs.appendFileSync(record, `${pathToFileURL(file).href}\n`);
    return readFileSync.call(this, file, ...rest);
  };
  // Node's built-in modules, however they were loaded (the bundle's require() passes no hook): `node:NAME` lines.
  process.on('exit', () => {
    const builtins = process.moduleLoadList
      .filter((entry) => entry.startsWith('NativeModule '))
      .map((entry) => `node:${entry.slice('NativeModule '.length)}\n`);
    fs.appendFileSync(record, builtins.join(''));
  });
}
