import type { ElementContent, RootContent } from 'hast';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { createLowlight } from 'lowlight';
import { h, type ComponentChildren } from 'preact';
import { visibleText } from './visible-text.js';

/**
 * The languages agents write most, and nothing more: each grammar costs bundle bytes (all of
 * highlight.js's 190 would be ~300 KB). A block in another language, or none, is shown plain.
 */
const lowlight = createLowlight({ bash, css, diff, go, javascript, json, markdown, python, rust, sql, typescript, xml, yaml });

/** Code as highlighted elements (classes `hljs-*`, coloured by highlight.css); every text made visible. */
export function highlighted(code: string, language: string): ComponentChildren {
  const name = language.toLowerCase();
  if (name === '' || !lowlight.registered(name)) return visibleText(code);
  return nodes(lowlight.highlight(name, code).children);
}

function nodes(children: ReadonlyArray<RootContent | ElementContent>): ComponentChildren {
  return children.map((node, index) => {
    if (node.type === 'text') return visibleText(node.value);
    if (node.type !== 'element') return null;
    const className = node.properties.className;
    return h('span', { key: index, class: Array.isArray(className) ? className.join(' ') : undefined }, nodes(node.children));
  });
}
