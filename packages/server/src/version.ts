/** This package's version (the CLI passes its own to `startServer`). */
export const SERVER_VERSION = '0.1.0';
