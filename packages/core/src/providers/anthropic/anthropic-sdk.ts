// What the Anthropic provider loads of `@anthropic-ai/sdk`: the base client and the Messages
// resource. The package's default export, `Anthropic`, builds every resource when it is made
// (files, skills, models, organization, beta…) and so brings all of their code: about 430 kB
// bundled, against some 120 kB for these two, which Legion's one call (`messages.create`) needs.
// Less code is less to load at every `legion run` (packages/cli/README.md, "How the binary is built").
export { BaseAnthropic } from '@anthropic-ai/sdk/client';
export { Messages } from '@anthropic-ai/sdk/resources/messages';
