import { z } from 'zod';

/**
 * The extension's settings as a layer of Legion's config: under the global and workspace config
 * files (the workspace's `.legion/config.json` stays the source of truth, for everyone who opens
 * it), above the built-in defaults. They are this editor user's preferences and never written
 * into the workspace; none of them is a secret (keys stay in the environment or the global config).
 */
export const EditorSettingsSchema = z.object({
  /** The agent `@legion` messages go to when neither config file names an entry agent. */
  entryAgent: z.string().trim().default(''),
  /**
   * What "Approve always" in the chat makes: `rule` (a persistent "approve always" rule for the
   * call's command or path, as the terminal menu's 3) or `session` (this tool for this requester,
   * this session, as the terminal menu's 2). A value of the wrong type is the narrower `session`.
   */
  approveAlways: z.enum(['session', 'rule']).default('rule').catch('session'),
});
export type EditorSettings = z.infer<typeof EditorSettingsSchema>;

/** Parses what VS Code's configuration holds; a value of the wrong type falls back to its default. */
export function readEditorSettings(get: (key: string) => unknown): EditorSettings {
  const entryAgent = get('entryAgent');
  return EditorSettingsSchema.parse({ entryAgent: typeof entryAgent === 'string' ? entryAgent : '', approveAlways: get('approveAlways') });
}

/** The entry agent: the config files' (global, then workspace) first, then the editor's setting, then the collective's default. */
export function entryAgentFor(configured: string | undefined, settings: EditorSettings, collectiveDefault: () => string): string {
  return configured ?? (settings.entryAgent || collectiveDefault());
}

/** The `remember` an "Approve always" answer carries. */
export function rememberFor(settings: EditorSettings): 'session' | 'always' {
  return settings.approveAlways === 'rule' ? 'always' : 'session';
}
