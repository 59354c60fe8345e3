/** The URL as it may be shown: without its password (nor any other `…password` parameter). */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    for (const name of [...parsed.searchParams.keys()]) if (/password$/i.test(name)) parsed.searchParams.delete(name);
    return parsed.toString();
  } catch {
    // Unparsable, often because the password holds an unencoded "#", "/" or "?": hide everything
    // from the user's ":" to the last "@" (more than the password at worst, never less).
    return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/?#\s]*:).*@/i, '$1***@').replace(/(password\s*=\s*)[^\s&]+/gi, '$1***');
  }
}
