// The public API of @legion-collective/server. The wire format is the subpath `@legion-collective/server/wire`.
export { startServer } from './start-server.js';
export type { RunningServer, StartServerOptions } from './start-server.js';
export { newAccessToken } from './access-token.js';
export { openApiDocument } from './openapi.js';
export { ROUTES } from './route-table.js';
export type { RouteSpec } from './route-table.js';
