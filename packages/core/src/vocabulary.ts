// `@legion-collective/core/vocabulary`: the one definition of what Legion says to the outside —
// messages, events, approval and question views — as zod schemas, with the types inferred from
// them. The server's wire format (`@legion-collective/server/wire`, its OpenAPI document) and `legion
// run`'s stream-json lines are derived from these; nothing else defines them again.
//
// A separate entry, not the main one: it reaches zod and nothing else of core (lint-enforced), so
// a browser or a client of the server can validate with it, and the engine, which needs only the
// types, never builds these schemas at start-up.
export * from './kernel/vocabulary.js';
export * from './store/vocabulary.js';
