// Preloaded with --import by bundle-cli.test.ts: records the URL of every module the process
// loads, one a line, in the file named by LEGION_TEST_LOADED (through Node's module hooks, which
// run on a thread of their own).
import { register } from 'node:module';

if (process.env.LEGION_TEST_LOADED) register('./record-loads-hooks.mjs', import.meta.url);
