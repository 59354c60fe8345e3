import { leadingRequestId } from './request-id.js';

describe('leadingRequestId', () => {
  it('reads the top-level id, never one nested in params, and only when its value is whole', () => {
    expect(leadingRequestId('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"argu')).toBe(7);
    expect(leadingRequestId(' { "id" : "a\\"b" , "params":')).toBe('a"b');
    expect(leadingRequestId('{"jsonrpc":"2.0","params":{"id":9,"text":"x')).toBeUndefined();
    expect(leadingRequestId('{"params":{"id":9},"id":5,"method":"x"')).toBe(5);
    expect(leadingRequestId('{"params":["id",{"id":1}],"id":-3}')).toBe(-3);
    // Cut inside the value: not guessed.
    expect(leadingRequestId('{"id":12')).toBeUndefined();
    expect(leadingRequestId('{"id":"abc')).toBeUndefined();
    expect(leadingRequestId('[{"id":1}]')).toBeUndefined();
    expect(leadingRequestId('{"id":{"x":1}}')).toBeUndefined();
  });
});
