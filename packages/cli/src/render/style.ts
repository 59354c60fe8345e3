import { styleText } from 'node:util';

type Format = Parameters<typeof styleText>[0];

/**
 * Whether `stream` gets colours: NO_COLOR switches them off, FORCE_COLOR on,
 * otherwise only a terminal gets them. Each stream is asked on its own:
 * `legion run > out.txt` keeps colour on the terminal's stderr, and
 * `legion run 2> log.txt` keeps escape codes out of the log.
 */
export function colorEnabled(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true;
}

/**
 * Whether replies written to `stream` are rendered as markdown: only on a
 * terminal that gets colours. Piped, or under NO_COLOR, a reply stays the raw
 * markdown the model wrote, unchanged: a script reads what was said, and
 * without colours the markers are what carries the emphasis.
 */
export function markdownEnabled(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && colorEnabled(stream, env);
}

export interface Style {
  readonly bold: (text: string) => string;
  readonly dim: (text: string) => string;
  readonly italic: (text: string) => string;
  readonly underline: (text: string) => string;
  readonly green: (text: string) => string;
  readonly red: (text: string) => string;
  readonly yellow: (text: string) => string;
  readonly cyan: (text: string) => string;
  readonly magenta: (text: string) => string;
  /** `text` in the colour of participant `id`: the same colour for the same id in every run, so parallel delegates are told apart at a glance. */
  readonly participant: (id: string, text: string) => string;
}

/**
 * Colours participants are told apart by: red and yellow are left to errors and warnings, green to
 * the user. Each must be one `terminalSafe` lets through (render/terminal-text.ts).
 */
const PARTICIPANT_COLOURS = ['cyan', 'magenta', 'blue', 'cyanBright', 'magentaBright', 'blueBright'] as const;

export type ParticipantColour = (typeof PARTICIPANT_COLOURS)[number];

/** A participant's colour, from its id alone (FNV-1a): stable across runs and processes. */
export function participantColour(id: string): ParticipantColour {
  let hash = 0x811c9dc5;
  for (let index = 0; index < id.length; index++) hash = Math.imul(hash ^ id.charCodeAt(index), 0x01000193);
  return PARTICIPANT_COLOURS[(hash >>> 0) % PARTICIPANT_COLOURS.length] ?? 'cyan';
}

function makeStyle(on: boolean): Style {
  // Decided above for this stream; Node 22's styleText would otherwise check process.stdout for every stream.
  const paint = (format: Format) => (text: string) => (on ? styleText(format, text, { validateStream: false }) : text);
  return {
    bold: paint('bold'),
    dim: paint('dim'),
    italic: paint('italic'),
    underline: paint('underline'),
    green: paint('green'),
    red: paint('red'),
    yellow: paint('yellow'),
    cyan: paint('cyan'),
    magenta: paint('magenta'),
    participant: (id, text) => paint(participantColour(id))(text),
  };
}

const styles = new WeakMap<NodeJS.WriteStream, Style>();

/** The styling for text written to `stream`: there is no default stream, so text cannot be styled for the wrong one. */
export function styleFor(stream: NodeJS.WriteStream): Style {
  let style = styles.get(stream);
  if (!style) {
    style = makeStyle(colorEnabled(stream));
    styles.set(stream, style);
  }
  return style;
}
