// A scripted $EDITOR for tests: applies the next edit of a JSON list of edits to the file it is given,
// as a person would in their editor. LEGION_TEST_EDITS names the list; each run takes one edit and
// counts its runs in `<list>.runs`. An edit is { "set": { field: value } } on the parsed file, or
// { "text": "…" } to replace the whole text (a syntax error, say).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const [file] = process.argv.slice(2);
const list = process.env.LEGION_TEST_EDITS;
if (!file || !list) {
  console.error('usage: LEGION_TEST_EDITS=edits.json scripted-editor.mjs FILE');
  process.exit(2);
}
const counter = `${list}.runs`;
const run = existsSync(counter) ? Number(readFileSync(counter, 'utf8')) : 0;
writeFileSync(counter, String(run + 1));
const edit = JSON.parse(readFileSync(list, 'utf8'))[run];
if (!edit) {
  console.error(`scripted editor: no edit number ${run + 1}`);
  process.exit(3);
}
if (edit.text !== undefined) writeFileSync(file, edit.text);
else writeFileSync(file, `${JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), ...edit.set }, null, 2)}\n`);
