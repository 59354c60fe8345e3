// Preloaded with --import by race tests: holds a process before Legion starts until the file
// named by LEGION_TEST_GATE exists, so several `legion` processes are released at one instant.
// Each says it is waiting by creating `<gate>.<pid>.ready`.
import { existsSync, writeFileSync } from 'node:fs';

const gate = process.env.LEGION_TEST_GATE;
if (gate) {
  writeFileSync(`${gate}.${process.pid}.ready`, '');
  while (!existsSync(gate)) await new Promise((resolve) => setTimeout(resolve, 1));
}
