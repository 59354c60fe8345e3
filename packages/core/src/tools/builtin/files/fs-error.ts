import { PathMovedError, FileTooLargeError, NotRegularFileError } from '../../../store/index.js';

/** A file system error as a short sentence a model can act on, naming the path it asked for. */
export function describeFsError(error: unknown, path: string, action: string): string {
  if (error instanceof PathMovedError) return error.message;
  if (error instanceof NotRegularFileError)
    return `"${path}" is ${error.kind}, not a regular file; file tools ${action === 'read' ? 'read' : 'change'} only regular files.`;
  if (error instanceof FileTooLargeError) {
    return `"${path}" is ${formatBytes(error.bytes)}, more than the ${formatBytes(error.limit)} file tools ${action} at once; read parts of it with a shell command (e.g. sed -n '1,200p') if you have one.`;
  }
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
      return `"${path}" does not exist.`;
    case 'EISDIR':
      return `"${path}" is a directory.`;
    case 'ENOTDIR':
      return `A part of "${path}" is a file, not a directory.`;
    case 'EACCES':
    case 'EPERM':
      return `No permission to ${action} "${path}".`;
    case 'ELOOP':
      return `"${path}" is a symbolic link loop, or a link was swapped in while it was opened; nothing was changed.`;
    case 'ENOTEMPTY':
      return `"${path}" is a directory that is not empty.`;
    default:
      return `Cannot ${action} "${path}": ${code ?? (error instanceof Error ? error.message : String(error))}.`;
  }
}

/** Bytes, compactly: 980 B, 12.3 KB, 4.0 MB, 100.0 GB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
}
