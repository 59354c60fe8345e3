import { permits } from './permits.js';

describe('permits', () => {
  it('lets a name through all, never through none, and through a list only by name or glob', () => {
    expect(permits('all', 'file_write')).toBe(true);
    expect(permits('none', 'file_read')).toBe(false);
    expect(permits(['file_*'], 'file_write')).toBe(true);
    expect(permits(['file_read'], 'file_write')).toBe(false);
  });
});
