/**
 * Where a link a model wrote may take you: the web and mail, nothing that runs (`javascript:`),
 * reads local data (`file:`, `data:`, `blob:`) or is relative (it would resolve against the app,
 * whose pages act with your token). Returns the normalized address, or null.
 */
export function safeHref(href: string): string | null {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'mailto:' ? url.href : null;
}
