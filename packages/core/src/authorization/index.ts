/**
 * The authorization area: policy (`AuthEngine`), shell-command analysis and approval-rule patterns.
 *
 * This file is the area's one entry: code outside `authorization/` imports from here, never from a file of
 * it (`npm run lint`, rule `authorization-through-its-index`; tests excepted). Files inside the area import
 * each other directly, never through this file (that would make cycles). It exports what other
 * areas and core's entries use, and nothing more.
 */

export { AuthEngine, FILE_READ_SUBJECT } from './AuthEngine.js';
export type { RulePatternOutcome } from './approval-rule-pattern.js';
export type { PolicySubject } from './call-facts.js';
export { entryVisibility } from './entry-visibility.js';
