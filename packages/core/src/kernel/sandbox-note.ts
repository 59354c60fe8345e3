import { z } from 'zod';

/**
 * How a command a model wrote will run, as its approval request recorded it when asked: in the OS
 * sandbox (`detail`: what confines it), unsandboxed (`detail`: why: the config, or a machine where
 * it cannot work), or refused (the sandbox is required and cannot work: it will not run even if
 * approved). Every surface's approval card shows it.
 */
export const SandboxNoteSchema = z.lazy(() =>
  z.object({
    kind: z.enum(['sandboxed', 'unsandboxed', 'refused']),
    detail: z.string(),
  }),
);
export type SandboxNote = z.infer<typeof SandboxNoteSchema>;

/** The card's one line: "runs sandboxed: …", "NOT sandboxed: …" or "will NOT run: …", the same words on every surface. */
export function sandboxLine(note: SandboxNote): string {
  if (note.kind === 'sandboxed') return `runs sandboxed: ${note.detail}`;
  if (note.kind === 'unsandboxed') return `NOT sandboxed: ${note.detail}`;
  return `will NOT run: ${note.detail}`;
}
