import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Task, TaskState, type ListTasksRequest, type ListTasksResponse } from '@a2a-js/sdk';
import { InMemoryTaskStore, type ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';
import { agentMessage } from './task-events.js';

/** Task ids the SDK makes (UUIDs) or a client gives; anything else is never a file name. */
const TASK_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * The SDK's in-memory task store, written through to one JSON file per task (the SDK's own JSON
 * form, `Task.toJSON`) and read back when the server starts: `tasks/get` answers for tasks of an
 * earlier run of `legion a2a serve`, and a context's follow-up finds the Legion session its
 * earlier tasks worked in. Listing and paging stay the SDK's.
 */
export class FileTaskStore implements TaskStore {
  private readonly memory = new InMemoryTaskStore();

  private constructor(private readonly dir: string) {}

  /** The store of the tasks in `dir`, with those saved there before loaded (under `context`'s scope, the one every request has). */
  static async open(dir: string, context: ServerCallContext, warn: (line: string) => void): Promise<FileTaskStore> {
    const store = new FileTaskStore(dir);
    await mkdir(dir, { recursive: true });
    for (const name of await readdir(dir)) {
      if (!name.endsWith('.json')) continue;
      let task: Task;
      try {
        task = Task.fromJSON(JSON.parse(await readFile(join(dir, name), 'utf8')));
      } catch (error) {
        warn(`legion a2a serve: skipped ${join(dir, name)}: not a task (${(error as Error).message})`);
        continue;
      }
      const state = task.status?.state;
      // Left working by a server that ended without a word (killed, crashed): nothing runs it any more. One waiting on input stays so: its turn is paused durably.
      if (state === TaskState.TASK_STATE_SUBMITTED || state === TaskState.TASK_STATE_WORKING) {
        task.status = {
          state: TaskState.TASK_STATE_FAILED,
          message: agentMessage(
            { taskId: task.id, contextId: task.contextId },
            'legion a2a serve ended while this task ran; what its agents did is in their conversation: send a new message in this context to go on.',
          ),
          timestamp: new Date().toISOString(),
        };
        await store.save(task, context);
      } else await store.memory.save(task, context);
    }
    return store;
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    await this.memory.save(task, context);
    if (!TASK_ID.test(task.id)) return;
    const file = join(this.dir, `${task.id}.json`);
    // Written whole, then renamed over: a crash mid-write leaves the previous state, never half a file.
    const temporary = `${file}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(Task.toJSON(task))}\n`);
    await rename(temporary, file);
  }

  load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    return this.memory.load(taskId, context);
  }

  list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return this.memory.list(params, context);
  }
}
