// What the Anthropic provider uses of `@anthropic-ai/sdk`: the base client and the Messages
// resource, all that Legion's one call (`messages.create`) needs. The package's default export,
// `Anthropic`, makes every resource (files, skills, models, organization, beta…), so a bundle of it
// holds all of their code: about 430 kB, against some 120 kB for these two (the package declares
// no side effects, so esbuild leaves the rest out). That is less to load at every `legion run`
// from the CLI's bundle; unbundled, Node still loads every module client.mjs imports.
export { BaseAnthropic } from '@anthropic-ai/sdk/client';
export { Messages } from '@anthropic-ai/sdk/resources/messages';
