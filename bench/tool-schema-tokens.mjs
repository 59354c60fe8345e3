// What tool definitions cost each request (issue 12: "tool definitions are context too"): an agent
// that may use every built-in tool, with `context.toolSchemas` "full" (every schema whole, what every
// request carried before) and "compact" (the small profile's: communicate and load_tools with a
// one-line-per-family catalogue; the rest loads on demand). Also each family's full schemas, the
// compact form of all of them (one-line summaries, parameters without prose), and what the first
// request carries after loading one family. Counted with the tokenizer context/ uses (gpt-tokenizer,
// cl100k_base) over each definition's JSON; providers wrap definitions a little differently.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Legion, initWorkspace } from '@legion-collective/core';
import { printJson, removeDir, tempDir } from './lib.mjs';

const root = tempDir('legion-bench-tool-schemas-');
initWorkspace(root, {
  participants: [
    { id: 'user', type: 'user', name: 'You', medium: 'repl' },
    { id: 'full', type: 'agent', name: 'Full', systemPrompt: 'Work.', tools: 'all', delegation: 'all', context: { toolSchemas: 'full' } },
    {
      id: 'compact',
      type: 'agent',
      name: 'Compact',
      systemPrompt: 'Work.',
      tools: 'all',
      delegation: 'all',
      context: { toolSchemas: 'compact' },
    },
  ],
});
writeFileSync(join(root, '.legion', 'config.json'), JSON.stringify({ version: 1 }));
const legion = Legion.open({ root, globalConfigFile: join(root, 'no-global-config.json') });
try {
  const full = (await legion.describeTools('full')).schemaTokens;
  const compact = (await legion.describeTools('compact')).schemaTokens;
  const tools = (await legion.describeTools('full')).tools.filter((tool) => tool.visible);
  console.log(`tool definitions of an agent with all ${tools.length} built-in tools (cl100k_base tokens of their JSON):`);
  console.log(`  toolSchemas "full":    ${full.offeredTokens} tokens in every request`);
  console.log(`  toolSchemas "compact": ${compact.offeredTokens} tokens in the first request (communicate, load_tools and its catalogue)`);
  console.log(`  every tool in compact form (one-line summary, parameters without prose): ${compact.compactTokens} tokens`);
  console.log('  per family, full schemas / what waiting saves a request under "compact":');
  for (const family of compact.onDemand)
    console.log(
      `    ${family.family.padEnd(12)} ${String(family.tools).padStart(2)} tools ${String(family.schemaTokens).padStart(5)} tokens, saves ${family.savedTokens}`,
    );
  printJson('tool-schema-tokens', {
    tools: tools.length,
    fullTokens: full.offeredTokens,
    compactTokens: compact.offeredTokens,
    allCompactTokens: compact.compactTokens,
    families: Object.fromEntries(compact.onDemand.map((family) => [family.family, family.schemaTokens])),
  });
} finally {
  await legion.close();
  removeDir(root);
}
