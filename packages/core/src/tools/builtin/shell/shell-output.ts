import type { OutputCapture } from './output-capture.js';

export interface StreamText {
  text: string;
  bytes: number;
}

/** stdout and stderr as labelled sections; empty streams are left out. */
export function formatStreams(stdout: StreamText, stderr: StreamText): string {
  const sections: string[] = [];
  if (stdout.bytes > 0) sections.push(`[stdout]\n${stdout.text.replace(/\n$/, '')}`);
  if (stderr.bytes > 0) sections.push(`[stderr]\n${stderr.text.replace(/\n$/, '')}`);
  return sections.length > 0 ? sections.join('\n') : '(no output)';
}

export function renderCapture(capture: OutputCapture, transform: (text: string) => string): StreamText {
  return { text: capture.render(transform), bytes: capture.totalBytes };
}
