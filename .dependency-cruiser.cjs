// The import rules of the monorepo, run by `npm run lint` (and so by .ci/run). Zero exceptions:
// fix the code, not this file. The layer order is the one written in docs/design/layers.md;
// keep the two in step.

/**
 * packages/core/src, bottom to top. A folder (or a file at the root of src) may import only from
 * its own layer entry and the ones listed before it.
 */
const LAYERS = [
  // kernel: errors, zod messages, sizes as errors say them and the message; its events; tracing.
  [
    'kernel/errors.ts',
    'kernel/error-codes.ts',
    'kernel/zod-issues.ts',
    'kernel/byte-size.ts',
    'kernel/message.ts',
    'kernel/sandbox-note.ts',
  ],
  ['kernel/events'],
  ['kernel/tracing', 'kernel/index.ts', 'kernel/vocabulary.ts'],
  // store: the file kit and the backend-neutral records; the port with the session's stores; each backend.
  ['store/fs', 'store/records'],
  ['store/*.ts'],
  ['store/file', 'store/memory', 'store/index.ts'],
  // team: who is in the collective and how it is configured.
  ['team/collective'],
  ['team/config', 'team/index.ts'],
  ['session'],
  // model: providers and the context budget.
  ['model/providers'],
  ['model/context', 'model/index.ts'],
  ['tools'],
  ['authorization'],
  // hitl: the human in the loop (approvals, questions, rules, user surfaces); the engine calls it and gives it ports.
  ['hitl'],
  // engine: conversations and sessions, then the runtimes that run their turns.
  ['engine/conversation'],
  ['engine/runtime', 'engine/index.ts'],
  ['Legion.ts', 'legion-wiring.ts', 'legion-direct-call.ts', 'legion-reports.ts'],
  ['driver'],
  ['index.ts', 'vocabulary.ts', 'backend.ts', 'management.ts', 'internal.ts'],
  ['testing'],
];

const CORE = '^packages/core/src/';
/**
 * The import paths of core's entries `names` (`''` is the main one): as a package names them, and as
 * the built files they resolve to. Each package may use only the entries its audience is given.
 */
const coreEntries = (names) =>
  `^(${names.map((name) => `@legion-collective/core${name ? `/${name}` : ''}`).join('|')}|packages/core/dist/(${names
    .map((name) => (name === 'testing' ? 'testing/index' : name || 'index'))
    .join('|')})\\.(js|d\\.ts))$`;
const PUBLIC_ENTRIES = ['', 'vocabulary', 'backend', 'management', 'internal'];
const escape = (name) => name.replace(/\./g, '\\.');
/**
 * A folder matches everything under it; a file matches itself; `folder/*.ts` the files directly in a
 * folder but its index.ts (an area's index sits in the area's top layer, since it re-exports all of it).
 */
const entryPattern = (names) =>
  `${CORE}(${names
    .map((name) =>
      name.endsWith('/*.ts')
        ? `${escape(name.slice(0, -5))}/(?!index\\.ts$)[^/]+\\.ts$`
        : name.endsWith('.ts')
          ? `${escape(name)}$`
          : `${escape(name)}/`,
    )
    .join('|')})`;

const layerRules = LAYERS.slice(0, -1).map((layer, index) => ({
  name: `layer-${layer.join('+')}`,
  comment: `${layer.join(', ')} sits below ${LAYERS.slice(index + 1)
    .flat()
    .join(', ')} (docs/design/layers.md): it may not import them.`,
  severity: 'error',
  from: { path: entryPattern(layer), pathNot: ['\\.test\\.ts$', '/__fixtures__/'] },
  to: { path: entryPattern(LAYERS.slice(index + 1).flat()) },
}));

/**
 * The areas of core: each is entered from outside through its index.ts, which re-exports its whole
 * area (node: modules included). An area may also have a vocabulary.ts, a second door that reaches
 * nothing but zod (rule area-vocabulary-reaches-only-zod): `@legion-collective/core/vocabulary`
 * comes in through those, so a browser can validate without loading the engine.
 */
const AREAS = ['kernel', 'store', 'team', 'session', 'model', 'tools', 'authorization', 'hitl', 'engine'];
const areaRules = AREAS.map((area) => ({
  name: `${area}-through-its-index`,
  comment: `The ${area} area (packages/core/src/${area}/) is entered through its index.ts (or its zod-only vocabulary.ts): code outside it imports \`${area}/index.js\`, never a file inside (tests and __fixtures__ excepted; docs/architecture.md, "Areas").`,
  severity: 'error',
  from: { path: CORE, pathNot: [`${CORE}${area}/`, '\\.test\\.ts$', '/__fixtures__/'] },
  to: { path: `${CORE}${area}/`, pathNot: `${CORE}${area}/(index|vocabulary)\\.ts$` },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Import cycles, type-only imports included, are what the layers exist to prevent.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    ...areaRules,
    {
      name: 'core-file-outside-the-layers',
      comment: 'Every file in packages/core/src belongs to a layer; a new folder is added to LAYERS (and to docs/design/layers.md) first.',
      severity: 'error',
      from: { path: CORE, pathNot: [entryPattern(LAYERS.flat()), '\\.test\\.ts$', '/__fixtures__/'] },
      to: {},
    },
    {
      name: 'cli-through-the-public-api',
      comment:
        'packages/cli uses core only through its entries (`@legion-collective/core`, `/vocabulary`, `/backend`, `/management`, `/internal`; tests: also `/testing`), never its files.',
      severity: 'error',
      from: { path: '^packages/cli/src/', pathNot: ['\\.test\\.ts$', '/__fixtures__/'] },
      to: { path: '^(packages/core/|@legion-collective/core)', pathNot: coreEntries(PUBLIC_ENTRIES) },
    },
    {
      name: 'cli-tests-through-the-public-api',
      comment: 'CLI tests use core through its entries and `/testing` only.',
      severity: 'error',
      from: { path: '^packages/cli/src/.*(\\.test\\.ts$|/__fixtures__/)' },
      to: { path: '^(packages/core/|@legion-collective/core)', pathNot: coreEntries([...PUBLIC_ENTRIES, 'testing']) },
    },
    {
      name: 'server-through-the-public-api',
      comment:
        'packages/server uses core only through its entries (`@legion-collective/core`, `/vocabulary`, `/management`, `/internal`; tests: also `/testing`), never its files.',
      severity: 'error',
      from: { path: '^packages/server/src/' },
      to: {
        path: '^(packages/core/|@legion-collective/core)',
        pathNot: coreEntries(['', 'vocabulary', 'management', 'internal', 'testing']),
      },
    },
    {
      name: 'store-postgres-through-the-public-api',
      comment:
        'packages/store-postgres is a backend like any other: it uses core only through `@legion-collective/core` and `/backend` (tests: also `/testing`), never `/internal`.',
      severity: 'error',
      from: { path: '^packages/store-postgres/src/' },
      to: { path: '^(packages/core/|@legion-collective/core)', pathNot: coreEntries(['', 'backend', 'testing']) },
    },
    {
      name: 'store-postgres-test-helpers-only-in-tests',
      comment: "The PostgreSQL backend ships without core's test helpers or its own test server: only tests import them.",
      severity: 'error',
      from: { path: '^packages/store-postgres/src/', pathNot: ['\\.test\\.ts$', '/test-support/', '/__fixtures__/'] },
      to: { path: '^(@legion-collective/core/testing|packages/core/dist/testing/|packages/store-postgres/src/test-support/)' },
    },
    {
      name: 'core-knows-no-store-postgres',
      comment: 'Dependencies point one way: store-postgres → core; core refuses a postgres config instead of loading it.',
      severity: 'error',
      from: { path: '^packages/core/' },
      to: { path: '^(packages/store-postgres/|@legion-collective/store-postgres)' },
    },
    {
      name: 'vscode-through-the-public-api',
      comment:
        'The VS Code extension (packages/vscode) is a thin client: core (its entries `@legion-collective/core`, `/vocabulary`, `/management`, `/internal`), the server and the PostgreSQL store only through their public entries (tests: also `/testing`); the extension ships without the test helpers.',
      severity: 'error',
      from: { path: '^packages/vscode/src/' },
      to: {
        path: '^(packages/(core|server|store-postgres)/|@legion-collective/(core|server|store-postgres))',
        pathNot: [
          coreEntries(['', 'vocabulary', 'management', 'internal', 'testing']),
          '^(@legion-collective/(server|store-postgres)|packages/(server|store-postgres)/dist/index\\.(js|d\\.ts))$',
        ],
      },
    },
    {
      name: 'vscode-test-helpers-only-in-tests',
      comment: 'The .vsix bundles what src/ imports: only tests may import `@legion-collective/core/testing`.',
      severity: 'error',
      from: { path: '^packages/vscode/src/', pathNot: ['\\.test\\.ts$'] },
      to: { path: '^(@legion-collective/core/testing|packages/core/dist/testing/)' },
    },
    {
      name: 'server-test-helpers-only-in-tests',
      comment: "The server ships without core's test helpers: only its tests import `@legion-collective/core/testing`.",
      severity: 'error',
      from: { path: '^packages/server/src/', pathNot: ['\\.test\\.ts$', '/__fixtures__/'] },
      to: { path: '^(@legion-collective/core/testing|packages/core/dist/testing/)' },
    },
    {
      name: 'wire-imports-only-the-vocabulary',
      comment:
        "The wire types are the documented format browsers build on: they import zod, each other and core's vocabulary (the one definition they derive from, itself zod only), nothing else of core or of the server.",
      severity: 'error',
      from: { path: '^packages/server/src/wire/' },
      to: {
        path: '^(packages/core/|@legion-collective/core|packages/server/src/(?!wire/))',
        pathNot: '^(@legion-collective/core/vocabulary|packages/core/dist/vocabulary\\.(js|d\\.ts))$',
      },
    },
    {
      name: 'vocabulary-reaches-only-zod',
      comment:
        '`@legion-collective/core/vocabulary` is what the wire types and clients validate with: from it, nothing but zod and zod-only files of core may be reached (no node: module, no other package).',
      severity: 'error',
      from: { path: '^packages/core/src/vocabulary\\.ts$' },
      to: { reachable: true, path: '^(?!packages/core/src/|node_modules/zod/)' },
    },
    {
      name: 'area-vocabulary-reaches-only-zod',
      comment:
        "An area's vocabulary.ts is its zod-only door (what `@legion-collective/core/vocabulary` re-exports): from it, nothing but zod and zod-only files of core may be reached.",
      severity: 'error',
      from: { path: '^packages/core/src/[^/]+/vocabulary\\.ts$' },
      to: { reachable: true, path: '^(?!packages/core/src/|node_modules/zod/)' },
    },
    {
      name: 'web-speaks-only-the-wire',
      comment:
        'The browser app (packages/web) knows the server only by its documented wire types (`@legion-collective/server/wire`) and nothing of core.',
      severity: 'error',
      from: { path: '^packages/web/src/', pathNot: ['\\.test\\.ts$', '/e2e/'] },
      to: {
        path: '^(packages/core/|@legion-collective/core|packages/cli/|@legion-collective/cli|packages/server/(?!(src|dist)/wire/)|@legion-collective/server(?!/wire$))',
      },
    },
    {
      name: 'web-imports-wire-types-only',
      comment: 'The browser app imports the wire with `import type`: no server code (zod schemas included) is bundled into it.',
      severity: 'error',
      from: { path: '^packages/web/src/', pathNot: ['\\.test\\.ts$', '/e2e/'] },
      to: { path: '^(packages/server/|@legion-collective/server)', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-orphans',
      comment: 'A source file nothing imports is dead code (entry points and tests aside).',
      severity: 'error',
      from: {
        orphan: true,
        pathNot: [
          '\\.test\\.ts$',
          '/__fixtures__/',
          '\\.d\\.ts$',
          '^packages/core/src/(index|vocabulary|backend|management|internal|testing/index)\\.ts$',
          '^packages/cli/src/legion\\.ts$',
          '^packages/server/src/(index|wire/index)\\.ts$',
          '^packages/web/src/main\\.tsx$',
        ],
      },
      to: {},
    },
    {
      name: 'core-reachable-from-its-entry-points',
      comment:
        'A core source file that no entry of core (`@legion-collective/core`, `/vocabulary`, `/backend`, `/management`, `/internal`, `/testing`) reaches is dead code, whatever tests still import it.',
      severity: 'error',
      from: { path: '^packages/core/src/(index|vocabulary|backend|management|internal|testing/index)\\.ts$' },
      to: {
        path: CORE,
        pathNot: [
          '\\.test\\.ts$',
          '/__fixtures__/',
          '\\.d\\.ts$',
          '^packages/core/src/(index|vocabulary|backend|management|internal|testing/index)\\.ts$',
        ],
        reachable: false,
      },
    },
    {
      name: 'core-knows-no-cli',
      comment: 'Dependencies point one way: cli → core.',
      severity: 'error',
      from: { path: '^packages/core/' },
      to: { path: '^(packages/cli/|@legion-collective/cli)' },
    },
  ],
  options: {
    // Type-only imports are imports: a cycle through `import type` is still a cycle.
    tsPreCompilationDeps: true,
    // Built output is where a package import lands; it is seen as a target, never cruised itself.
    doNotFollow: { path: ['node_modules', '(^|/)dist/'] },
    enhancedResolveOptions: {
      extensions: ['.ts', '.tsx', '.mjs', '.js', '.d.ts', '.json'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'types', 'node', 'default'],
    },
  },
};
