import { allowingEntry, directHosts } from './host-allow-list.js';

describe('allowingEntry: which hosts an allow-list lets a sandboxed command reach', () => {
  const allow = ['registry.npmjs.org', '*.github.com', '10.0.0.5', '::1', 'localhost'];

  it('matches a name exactly, whatever its case or trailing dot', () => {
    expect(allowingEntry('registry.npmjs.org', allow)).toBe('registry.npmjs.org');
    expect(allowingEntry('Registry.NPMJS.org.', allow)).toBe('registry.npmjs.org');
    expect(allowingEntry('npmjs.org', allow)).toBeUndefined();
    expect(allowingEntry('evil-registry.npmjs.org', allow)).toBeUndefined();
    expect(allowingEntry('registry.npmjs.org.evil.com', allow)).toBeUndefined();
  });

  it('a wildcard matches the names under it, not the name itself nor a look-alike', () => {
    expect(allowingEntry('api.github.com', allow)).toBe('*.github.com');
    expect(allowingEntry('a.b.github.com', allow)).toBe('*.github.com');
    expect(allowingEntry('github.com', allow)).toBeUndefined();
    expect(allowingEntry('evilgithub.com', allow)).toBeUndefined();
  });

  it('an address matches only itself, in any spelling, never through a name or a wildcard', () => {
    expect(allowingEntry('10.0.0.5', allow)).toBe('10.0.0.5');
    expect(allowingEntry('10.0.5', allow)).toBe('10.0.0.5');
    expect(allowingEntry('0xa.0.0.5', allow)).toBe('10.0.0.5');
    expect(allowingEntry('[::1]', allow)).toBe('::1');
    expect(allowingEntry('0:0:0:0:0:0:0:1', allow)).toBe('::1');
    // localhost is listed; the host's 127.0.0.1 is not, in any spelling.
    expect(allowingEntry('127.0.0.1', allow)).toBeUndefined();
    expect(allowingEntry('127.1', allow)).toBeUndefined();
    expect(allowingEntry('2130706433', allow)).toBeUndefined();
    expect(allowingEntry('1.2.3.4', ['*.4'])).toBeUndefined();
    expect(allowingEntry('', allow)).toBeUndefined();
  });

  it('NO_PROXY keeps the sandbox loopback direct, except the names the list gives the host', () => {
    expect(directHosts(['registry.npmjs.org'])).toBe('localhost,127.0.0.1,::1');
    expect(directHosts(allow)).toBe('127.0.0.1');
  });
});
