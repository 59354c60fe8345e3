// Loaded by prepareCommandProcess before any command code builds a schema (its own module, so that the
// bundle imports zod's `config` alone rather than building zod's whole namespace object for `import('zod')`).
import { config } from 'zod';

/**
 * zod compiles a fast path (`new Function`) for each object schema on its first parse, which V8
 * compiles again at every start (no code cache holds it): ~2 ms of a `legion run`, which parses a
 * handful of files once each. The fast path only speeds up parsing one schema many times; the
 * results are the same without it. zod reads the setting when a schema is built.
 */
config({ jitless: true });
