// Preloaded (`--import`) by bundle-cli.test.ts: counts the functions a process makes from source text at
// run time (`new Function`), which V8 compiles at every start since no code cache holds them, and writes
// the count to the file LEGION_TEST_FUNCTIONS names when the process exits.
import { writeFileSync } from 'node:fs';

const Original = globalThis.Function;
let count = 0;
globalThis.Function = new Proxy(Original, {
  construct(target, args, newTarget) {
    count++;
    return Reflect.construct(target, args, newTarget);
  },
  apply(target, self, args) {
    count++;
    return Reflect.apply(target, self, args);
  },
});
process.on('exit', () => writeFileSync(process.env.LEGION_TEST_FUNCTIONS, String(count)));
