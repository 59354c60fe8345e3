import { displayUrl } from './display-url.js';

describe('displayUrl', () => {
  it('hides the password of a URL', () => {
    expect(displayUrl('postgres://legion:s3cret@db.example:5432/legion?password=other')).toBe(
      'postgres://legion:***@db.example:5432/legion',
    );
    expect(displayUrl('host=db password=s3cret dbname=legion')).toBe('host=db password=*** dbname=legion');
  });

  // A password with an unencoded "#", "/" or "?" (a common slip) makes the URL unparsable; pg then fails with
  // "Invalid URL", and the URL shown beside that error must still not carry the password.
  it.each([
    'postgres://legion:pa#ss@127.0.0.1:5432/legion',
    'postgres://legion:pa/ss@127.0.0.1:5432/legion',
    'postgres://legion:s3cret@127.0.0.1:notaport/legion',
    'postgresql://legion:p?ss@db/legion',
  ])('hides the password of a URL it cannot parse: %s', (url) => {
    const shown = displayUrl(url);
    expect(shown).not.toMatch(/pa#ss|pa\/ss|s3cret|p\?ss/);
    expect(shown).toContain('legion:***@');
  });

  it("hides sslpassword (the client key's passphrase) too", () => {
    expect(displayUrl('postgres://legion@db/legion?sslmode=require&sslpassword=keypass')).not.toContain('keypass');
  });
});
