import { styleText } from 'node:util';

type Format = Parameters<typeof styleText>[0];

function enabled(stream: NodeJS.WriteStream): boolean {
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '') return false;
  if (process.env.FORCE_COLOR !== undefined && process.env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true;
}

/** Terminal styling that switches itself off for pipes and NO_COLOR. */
export function makeStyle(stream: NodeJS.WriteStream = process.stdout) {
  const on = enabled(stream);
  const paint = (format: Format) => (text: string) => (on ? styleText(format, text) : text);
  return {
    bold: paint('bold'),
    dim: paint('dim'),
    green: paint('green'),
    red: paint('red'),
    yellow: paint('yellow'),
    cyan: paint('cyan'),
    magenta: paint('magenta'),
  };
}

export const style = makeStyle();
