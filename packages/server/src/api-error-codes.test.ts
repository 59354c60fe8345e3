import { LEGION_ERROR_CODES, LegionError, type ErrorCodeEntry, type LegionErrorCode } from '@legion-collective/core';
import { ApiError } from './api-error.js';
import { fromLegionError } from './routes/define-routes.js';
import { ErrorCodeSchema } from './wire/errors.js';

const catalogue = Object.entries(LEGION_ERROR_CODES) as Array<[LegionErrorCode, ErrorCodeEntry]>;

describe("the API's error codes", () => {
  it('are the catalogued codes seen on the API, no more, no fewer', () => {
    const seenOnTheApi = catalogue.filter(([, entry]) => entry.seen.includes('api')).map(([code]) => code);
    expect([...ErrorCodeSchema.options].sort()).toEqual(seenOnTheApi.sort());
  });

  it('answer each LegionError with the status and the code its catalogue entry gives (else as an internal error)', () => {
    for (const [code, entry] of catalogue.filter(([, entry]) => entry.seen.includes('error'))) {
      const error = new LegionError(code, `A LegionError coded ${code}.`);
      const answered = fromLegionError(error);
      if (entry.served === undefined) {
        expect(answered, code).toBe(error);
        continue;
      }
      expect(answered, code).toBeInstanceOf(ApiError);
      expect({ status: (answered as ApiError).status, code: (answered as ApiError).code }, code).toEqual({
        status: entry.served.status,
        code: entry.served.as,
      });
      expect((answered as ApiError).message).toBe(error.message);
    }
  });
});
