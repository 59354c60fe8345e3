import { spawnSync } from 'node:child_process';
import { FetchHeaders } from './fetch-headers.js';

describe('FetchHeaders, the Headers the bundled SDKs get instead of undici', () => {
  it('behaves as the global Headers on the same calls', () => {
    const script = (headers: Headers | FetchHeaders): unknown[] => {
      headers.append('X-B', 'one');
      headers.append('x-b', ' two\t');
      headers.set('Content-Type', 'application/json');
      headers.append('set-cookie', 'a=1');
      headers.append('set-cookie', 'b=2');
      headers.append('x-gone', 'soon');
      headers.delete('X-Gone');
      const seen: string[] = [];
      headers.forEach((value, name) => seen.push(`${name}=${value}`));
      return [
        [...headers],
        seen,
        headers.get('X-B'),
        headers.has('x-gone'),
        headers.get('missing'),
        headers.getSetCookie(),
        [...new FetchHeaders(headers)],
      ];
    };
    expect(script(new FetchHeaders())).toEqual(script(new Headers()));
    expect([...new FetchHeaders({ A: '1', b: '2' })]).toEqual([...new Headers({ A: '1', b: '2' })]);
    expect([...new FetchHeaders([['A', '1']])]).toEqual([['a', '1']]);
    expect([...new Headers(new FetchHeaders([['A', '1']]))]).toEqual([['a', '1']]);
  });

  it('refuses a name that is not a token and a value that would smuggle in another header, as the global Headers', () => {
    for (const headers of [new FetchHeaders(), new Headers()]) {
      expect(() => headers.set('x-ok', 'fine\r\nx-injected: 1')).toThrow(TypeError);
      expect(() => headers.append('bad name', 'v')).toThrow(TypeError);
      expect(() => headers.set('x-nul', 'a\0b')).toThrow(TypeError);
    }
    expect(() => new FetchHeaders([['only-name']] as unknown as Array<[string, string]>)).toThrow(TypeError);
  });

  it("a response's headers cannot be changed", () => {
    const headers = FetchHeaders.fromRaw(['X-A', '1', 'x-a', '2']);
    expect(headers.get('x-a')).toBe('1, 2');
    expect(() => headers.set('x-a', '3')).toThrow(TypeError);
    expect(() => headers.append('x-b', '3')).toThrow(TypeError);
    expect(() => headers.delete('x-a')).toThrow(TypeError);
  });
});

describe('undiciFreeGlobals', () => {
  it('FormData, Request and Response load undici only when used, and are then the real ones', () => {
    // A fresh process (vitest's own has undici loaded already), on core as built, as the other child processes of these tests.
    const script = `
      const { undiciFreeGlobals: g } = await import('@legion-collective/core');
      const loaded = () => process.moduleLoadList.some((entry) => entry.includes('undici'));
      const before = [({}) instanceof g.FormData, 'x' instanceof g.Response, new g.Headers({ a: '1' }).get('a'), loaded()];
      const form = new g.FormData();
      form.append('k', 'v');
      const after = [form instanceof globalThis.FormData, form instanceof g.FormData, new g.Response('hi') instanceof globalThis.Response, typeof g.Response.json, loaded()];
      console.log(JSON.stringify({ before, after }));`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: import.meta.dirname });
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ before: [false, false, '1', false], after: [true, true, true, 'function', true] });
  });
});
