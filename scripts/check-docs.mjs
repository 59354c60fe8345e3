#!/usr/bin/env node
// Checks the documentation the way the compiler checks the code (docs/decisions.md, "The documentation
// is checked"): every ```ts block in README.md, docs/**/*.md and packages/*/README.md is compiled, in one
// program, against the built packages (`npm run build` first), with the project's strict settings, as a
// user's file importing `@legion-collective/core` would be; and every relative link in those files
// resolves to a file, a folder or a heading that exists. A block that is a fragment on purpose is
// fenced ```ts fragment (or ```ts no-check) and only its links are checked.
//
// Usage: node scripts/check-docs.mjs [--links-only] [--root DIR]   (exit 1 and a file:line per problem)
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const linksOnly = args.includes('--links-only');
const rootIndex = args.indexOf('--root');
const root = resolve(rootIndex >= 0 ? args[rootIndex + 1] : join(dirname(fileURLToPath(import.meta.url)), '..'));

/** The Markdown files that document Legion: the root README, docs/ and each package's README. */
function documentationFiles() {
  const files = [];
  if (existsSync(join(root, 'README.md'))) files.push(join(root, 'README.md'));
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  if (existsSync(join(root, 'docs'))) walk(join(root, 'docs'));
  const packages = join(root, 'packages');
  if (existsSync(packages))
    for (const name of readdirSync(packages))
      if (existsSync(join(packages, name, 'README.md'))) files.push(join(packages, name, 'README.md'));
  return files;
}

/** Fenced blocks with their info string and the line their first code line is on (1-based). */
function fencedBlocks(text) {
  const blocks = [];
  const lines = text.split('\n');
  let open;
  lines.forEach((line, index) => {
    const fence = /^(\s*)(```+|~~~+)\s*(.*)$/.exec(line);
    if (!open && fence) open = { indent: fence[1].length, marker: fence[2], info: fence[3].trim(), start: index + 2, code: [] };
    else if (open && fence && fence[2].startsWith(open.marker) && fence[3] === '') {
      blocks.push({ info: open.info, start: open.start, end: index + 1, code: open.code.join('\n') });
      open = undefined;
    } else if (open) open.code.push(line.slice(Math.min(open.indent, line.length - line.trimStart().length)));
  });
  return blocks;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(text) {
  const anchors = new Set();
  const seen = new Map();
  const outsideFences = text.split('\n').filter((_, index, lines) => !insideFence(lines, index));
  for (const line of outsideFences) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1]
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

const fenceCache = new WeakMap();
function insideFence(lines, index) {
  let flags = fenceCache.get(lines);
  if (!flags) {
    flags = [];
    let open = false;
    for (const line of lines) {
      const fence = /^\s*(```|~~~)/.test(line);
      flags.push(open || fence);
      if (fence) open = !open;
    }
    fenceCache.set(lines, flags);
  }
  return flags[index];
}

function checkLinks(file, text, problems) {
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (insideFence(lines, index)) return;
    // Inline code is not a link: `[x](y)` inside backticks is left alone.
    const prose = line.replace(/`[^`]*`/g, '');
    for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
      const [pathPart, anchor] = target.split('#');
      const path = pathPart === '' ? file : resolve(dirname(file), decodeURIComponent(pathPart));
      const where = `${relative(root, file)}:${index + 1}`;
      if (!existsSync(path)) {
        problems.push(`${where}: link to ${target}: ${relative(root, path)} does not exist`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      if (statSync(path).isDirectory() || !path.endsWith('.md')) {
        problems.push(`${where}: link to ${target}: an anchor needs a Markdown file`);
        continue;
      }
      if (!anchorsOf(readFileSync(path, 'utf8')).has(anchor))
        problems.push(`${where}: link to ${target}: ${relative(root, path)} has no heading #${anchor}`);
    }
  });
}

/** Where a source path written in inline code (`runtime/tool-phase.ts`) may be relative to. */
const sourceBases = [
  root,
  ...(existsSync(join(root, 'packages')) ? readdirSync(join(root, 'packages')) : []).flatMap((name) => [
    join(root, 'packages', name),
    join(root, 'packages', name, 'src'),
  ]),
];

/**
 * A source file named in inline code (`conversation/Session.ts`, `packages/cli/src/repl/repl.ts`)
 * must exist under the repository, a package or a package's src/: a file moved or renamed leaves
 * the docs naming it behind, and no link check sees inline code. Built files (dist/) are not sources.
 */
function checkSourcePaths(file, text, problems) {
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (insideFence(lines, index)) return;
    for (const match of line.matchAll(/`([\w.@-]+(?:\/[\w.@-]+)+\.(?:ts|tsx|mts|mjs|cjs))`/g)) {
      const path = match[1];
      if (/(^|\/)(dist|node_modules)\//.test(path)) continue;
      if (!sourceBases.some((base) => existsSync(join(base, path))))
        problems.push(`${relative(root, file)}:${index + 1}: \`${path}\` names no file of the repository (moved or renamed?)`);
    }
  });
}

/** Compiles every checked ```ts block in one program; a diagnostic is reported at its Markdown line. */
async function checkSnippets(snippets, problems) {
  if (snippets.length === 0) return;
  if (!existsSync(join(root, 'node_modules/@legion-collective/core/dist/index.d.ts'))) {
    problems.push('the snippets compile against the built packages: run `npm run build` first');
    return;
  }
  const { default: ts } = await import('typescript');
  // Inside node_modules of the repository, so that `@legion-collective/*` and zod resolve as in a user's project.
  const scratch = join(root, `node_modules/.cache/doc-snippets-${process.pid}`);
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  // ES modules, as a user's project would have them (top-level await), whatever the root's package.json says.
  writeFileSync(join(scratch, 'package.json'), '{ "type": "module" }\n');
  const origins = new Map();
  const files = snippets.map((snippet, index) => {
    const path = join(scratch, `snippet-${index}.ts`);
    // Each snippet is a module of its own (top-level await, names that do not clash with the others').
    writeFileSync(path, `${snippet.code}\nexport {};\n`);
    origins.set(path, snippet);
    return path;
  });
  const program = ts.createProgram(files, {
    strict: true,
    noUncheckedIndexedAccess: true,
    noImplicitOverride: true,
    noImplicitReturns: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2023,
    lib: ['lib.es2023.d.ts'],
    types: ['node'],
    skipLibCheck: true,
    noEmit: true,
  });
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    // One problem per line: a diagnostic's chained explanation is indented under it.
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n').replace(/\n\s*/g, '\n    ');
    const snippet = diagnostic.file && origins.get(resolve(diagnostic.file.fileName));
    if (!snippet) {
      problems.push(`snippets: ${message}`);
      continue;
    }
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    problems.push(`${relative(root, snippet.file)}:${snippet.start + line}: ${message}`);
  }
  rmSync(scratch, { recursive: true, force: true });
}

const problems = [];
const snippets = [];
for (const file of documentationFiles()) {
  const text = readFileSync(file, 'utf8');
  checkLinks(file, text, problems);
  checkSourcePaths(file, text, problems);
  for (const block of fencedBlocks(text)) {
    const [language, ...flags] = block.info.split(/\s+/);
    if (!['ts', 'typescript'].includes(language) || flags.includes('fragment') || flags.includes('no-check')) continue;
    snippets.push({ file, start: block.start, code: block.code });
  }
}
if (!linksOnly) await checkSnippets(snippets, problems);
for (const problem of problems) console.error(problem);
if (problems.length > 0) process.exit(1);
console.log(`docs: ${linksOnly ? 'links' : `${snippets.length} TypeScript snippets and the links`} check out`);
