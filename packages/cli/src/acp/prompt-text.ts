import type { ContentBlock } from '@agentclientprotocol/sdk';

/**
 * A prompt's content blocks as the one message Legion's agents read: text as it is, an embedded
 * resource (a file or selection the editor attached, unsaved edits included) as a fenced block
 * under its URI, a link to a resource as its URI (the agents read the file themselves). Images and
 * audio are not advertised (`promptCapabilities`), so an editor does not send them; one that does
 * is told what was left out rather than having it dropped without a word.
 */
export function promptText(blocks: readonly ContentBlock[]): string {
  const parts: string[] = [];
  for (const block of blocks) {
    if (block.type === 'text') parts.push(block.text);
    else if (block.type === 'resource_link') parts.push(`@${block.uri}`);
    else if (block.type === 'resource') {
      const resource = block.resource;
      if ('text' in resource) parts.push(`${resource.uri}:\n\`\`\`\n${resource.text}\n\`\`\``);
      else parts.push(`@${resource.uri} (binary content, not included)`);
    } else parts.push(`(an ${block.type} was attached; Legion reads text only, so it was left out)`);
  }
  return parts.join('\n\n').trim();
}
