// Opens a workspace, waits at a gate (the file named by LEGION_TEST_GATE), then resumes or creates
// the first session and prints its id: the race of several `legion run`s on a fresh workspace with
// the start-up time taken out, so that the processes reach the session store at one instant.
import { existsSync, writeFileSync } from 'node:fs';
import { Legion } from '@legion-collective/core';

const legion = Legion.open({ root: process.argv[2] });
const gate = process.env.LEGION_TEST_GATE;
writeFileSync(`${gate}.${process.pid}.ready`, '');
while (!existsSync(gate)) await new Promise((resolve) => setTimeout(resolve, 1));
process.stdout.write((await legion.sessions.resumeOrCreate()).id);
await legion.close();
