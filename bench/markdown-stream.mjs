// What rendering a streamed reply as markdown costs the REPL per frame: an 11 kB reply (headings,
// paragraphs, lists, code blocks, tables) arrives in 40-character deltas and the transcript is
// rendered after each, as pi-tui does. Compared with rendering the whole reply at each frame
// (`markdownLines` on all of it), which is what the transcript avoids by rendering each finished
// block once. The CLI is a bundle, so its two modules are bundled here with esbuild first.
import { build } from 'esbuild';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { median, printJson, removeDir, round, tempDir } from './lib.mjs';

const CLI = fileURLToPath(new URL('../packages/cli/src/', import.meta.url));
const ROUNDS = Number(process.env.BENCH_MARKDOWN_ROUNDS ?? 5);
const dir = tempDir('legion-bench-markdown-');
const entry = join(dir, 'entry.mjs');
try {
  await build({
    stdin: {
      contents: `export { Transcript } from ${JSON.stringify(join(CLI, 'repl/transcript.ts'))};
export { markdownLines } from ${JSON.stringify(join(CLI, 'render/markdown.ts'))};
export { styleFor } from ${JSON.stringify(join(CLI, 'render/style.ts'))};`,
      resolveDir: CLI,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: entry,
    logLevel: 'warning',
  });
  const { Transcript, markdownLines, styleFor } = await import(pathToFileURL(entry).href);
  const style = styleFor({ isTTY: true });
  const block = (index) =>
    `## Part ${index}\n\nSome **bold** text with \`code\` and a [link](https://example.com/${index}) that runs long enough to wrap.\n\n- one\n- two\n\n\`\`\`ts\nconst x${index} = ${index};\n\`\`\`\n\n| a | b |\n|---|---|\n| ${index} | value |\n\n`;
  const reply = Array.from({ length: 60 }, (_, index) => block(index)).join('');
  const deltas = [];
  for (let at = 0; at < reply.length; at += 40) deltas.push(reply.slice(at, at + 40));

  const streamed = [];
  const whole = [];
  let same = true;
  for (let round = 0; round < ROUNDS; round++) {
    const transcript = new Transcript(
      () => 1000,
      () => 3,
      (text, width) => markdownLines(text, width, style),
    );
    const stream = transcript.open('agent: ');
    let started = process.hrtime.bigint();
    for (const delta of deltas) {
      stream.append(delta);
      transcript.render(100);
    }
    streamed.push(Number(process.hrtime.bigint() - started) / 1e6 / deltas.length);
    stream.finish();
    same &&= transcript.render(100).join('\n') === ['agent:', ...markdownLines(reply, 100, style)].join('\n');

    let text = '';
    started = process.hrtime.bigint();
    for (const delta of deltas) {
      text += delta;
      markdownLines(text, 100, style);
    }
    whole.push(Number(process.hrtime.bigint() - started) / 1e6 / deltas.length);
  }
  console.log(`markdown-stream — a ${reply.length}-character reply in ${deltas.length} deltas, rendered after each (${ROUNDS} rounds)`);
  console.log(`  transcript (finished blocks rendered once)   median ${round(median(streamed), 2)} ms a frame`);
  console.log(`  the whole reply rendered at each frame       median ${round(median(whole), 2)} ms a frame`);
  console.log(`  the streamed rendering equals the whole one: ${same}`);
  printJson('markdown-stream', { frameMs: round(median(streamed), 2), wholeFrameMs: round(median(whole), 2), same });
} finally {
  removeDir(dir);
}
