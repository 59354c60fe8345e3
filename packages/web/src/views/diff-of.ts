import { createTwoFilesPatch } from 'diff';

/**
 * A unified diff of what a file tool would change, from its arguments alone: `file_edit` replaces
 * `old_string` by `new_string`; `file_write` writes `content` (shown against an empty file, since
 * the browser does not read the workspace). Other tools: null.
 */
export function diffOf(tool: string, input: unknown): string | null {
  if (typeof input !== 'object' || input === null) return null;
  const fields = input as Record<string, unknown>;
  const path = typeof fields.path === 'string' ? fields.path : 'file';
  if (tool === 'file_edit' && typeof fields.old_string === 'string' && typeof fields.new_string === 'string') {
    return withoutHeader(
      createTwoFilesPatch(`a/${path}`, `b/${path}`, withNewline(fields.old_string), withNewline(fields.new_string), '', '', { context: 3 }),
    );
  }
  if (tool === 'file_write' && typeof fields.content === 'string') {
    return withoutHeader(createTwoFilesPatch(`a/${path}`, `b/${path}`, '', withNewline(fields.content), '', '', { context: 3 }));
  }
  return null;
}

const withNewline = (text: string): string => (text.endsWith('\n') || text === '' ? text : `${text}\n`);

// The `===` line createTwoFilesPatch puts first says nothing the --- / +++ lines do not.
const withoutHeader = (patch: string): string => patch.replace(/^=+\n/, '');
