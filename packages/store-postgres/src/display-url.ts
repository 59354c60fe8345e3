/** The URL as it may be shown: without its password. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    parsed.searchParams.delete('password');
    return parsed.toString();
  } catch {
    return url.replace(/(password\s*=\s*)\S+/gi, '$1***');
  }
}
