// The public API of @legion-collective/server. The wire format is the subpath `@legion-collective/server/wire`.
export {};
