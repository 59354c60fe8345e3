import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { writeJsonAtomic } from './atomic-json.js';
import { currentProcessIdentity, processState } from './process-identity.js';
import { ProcessIdentitySchema } from './process-identity-schema.js';
import { readRegularFileSync } from './regular-file.js';

const PresenceSchema = z.lazy(() =>
  z.object({
    version: z.literal(1),
    medium: z.string(),
    process: ProcessIdentitySchema,
    since: z.string(),
  }),
);

/** A surface attached in another process of this machine, as its record says. */
export interface AttachedElsewhere {
  medium: string;
  pid: number;
  since: string;
}

/**
 * Which processes on this machine have a person's surface attached to the workspace and follow
 * every session (`legion serve`'s browser app): a question raised where nobody can be asked
 * waits for them to answer it, instead of pausing the run. One file per surface in
 * `.legion/run/surfaces/`, removed when the surface goes; a file whose process is gone (killed)
 * counts for nothing and is cleared by the next reader. Machine-local, as `run/` is: a process on
 * another machine is not known to be alive, so it does not count.
 */
export class SurfacePresence {
  constructor(private readonly dir: string) {}

  /** Records that this process has a surface of `medium` attached; the disposer removes the record. */
  announce(medium: string): () => void {
    const file = join(this.dir, `${process.pid}-${randomBytes(4).toString('hex')}.json`);
    mkdirSync(this.dir, { recursive: true });
    writeJsonAtomic(file, { version: 1, medium, process: currentProcessIdentity(), since: new Date().toISOString() } satisfies z.infer<
      typeof PresenceSchema
    >);
    let removed = false;
    const remove = (): void => {
      if (removed) return;
      removed = true;
      process.off('exit', remove);
      rmSync(file, { force: true });
    };
    // A process that ends without detaching (Ctrl+C through an exit path) still takes its record along.
    process.on('exit', remove);
    return remove;
  }

  /** The surfaces other live processes on this machine have attached now. */
  elsewhere(): AttachedElsewhere[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    const found: AttachedElsewhere[] = [];
    for (const name of names) {
      if (!name.endsWith('.json')) continue;
      const file = join(this.dir, name);
      let record: z.infer<typeof PresenceSchema>;
      try {
        record = PresenceSchema.parse(JSON.parse(readRegularFileSync(file, { maxBytes: 64 * 1024 }).toString('utf8')));
      } catch {
        // Half-written by a process killed mid-write, or not ours: it announces nobody.
        continue;
      }
      if (record.process.pid === process.pid) continue;
      const state = processState(record.process);
      if (state === 'dead') rmSync(file, { force: true });
      if (state === 'alive') found.push({ medium: record.medium, pid: record.process.pid, since: record.since });
    }
    return found;
  }
}
