/** How much of a file is sniffed for NUL bytes, as git does. */
const SNIFF_BYTES = 8000;

/** A NUL byte near the start means binary: text encodings Legion reads (UTF-8) never contain one. */
export function looksBinary(content: Buffer): boolean {
  return content.subarray(0, SNIFF_BYTES).includes(0);
}
