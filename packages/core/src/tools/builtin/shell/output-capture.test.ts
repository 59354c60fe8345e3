import { OutputCapture } from './output-capture.js';

describe('OutputCapture', () => {
  it('keeps everything under the limit', () => {
    const capture = new OutputCapture(100);
    capture.push(Buffer.from('hello '));
    capture.push(Buffer.from('world'));
    expect(capture.render()).toBe('hello world');
    expect(capture.totalBytes).toBe(11);
  });

  it('keeps the head and the tail of a long stream and says how many bytes were cut', () => {
    const capture = new OutputCapture(10);
    for (let index = 0; index < 100; index++) capture.push(Buffer.from(String(index % 10)));
    expect(capture.render()).toBe('01234\n… [90 bytes cut] …\n56789');
    capture.push(Buffer.from('abcdefghijklmnopqrstuvwxyz'));
    expect(capture.render()).toBe('01234\n… [116 bytes cut] …\nvwxyz');
  });

  it('starts over after take()', () => {
    const capture = new OutputCapture(10);
    capture.push(Buffer.from('first'));
    expect(capture.take()).toEqual({ text: 'first', bytes: 5 });
    expect(capture.take()).toEqual({ text: '', bytes: 0 });
    capture.push(Buffer.from('second'));
    expect(capture.take((text) => text.toUpperCase())).toEqual({ text: 'SECOND', bytes: 6 });
  });
});
