// The module hook registered by record-loads.mjs.
import { appendFileSync } from 'node:fs';

export async function load(url, context, nextLoad) {
  appendFileSync(process.env.LEGION_TEST_LOADED, `${url}\n`);
  return nextLoad(url, context);
}
