import { entryAgentFor, readEditorSettings, rememberFor } from './editor-settings.js';

describe('editor settings as a config layer', () => {
  const settings = (values: Record<string, unknown>) => readEditorSettings((key) => values[key]);

  it('lets the config files name the entry agent first, then the editor setting, then the collective', () => {
    expect(entryAgentFor('lead', settings({ entryAgent: 'developer' }), () => 'coordinator')).toBe('lead');
    expect(entryAgentFor(undefined, settings({ entryAgent: ' developer ' }), () => 'coordinator')).toBe('developer');
    expect(entryAgentFor(undefined, settings({ entryAgent: '' }), () => 'coordinator')).toBe('coordinator');
  });

  it('makes "Approve always" a rule (as the terminal\'s [a]) unless the setting asks for a session grant', () => {
    expect(rememberFor(settings({}))).toBe('always');
    expect(rememberFor(settings({ approveAlways: 'rule' }))).toBe('always');
    expect(rememberFor(settings({ approveAlways: 'session' }))).toBe('session');
    // A hand-edited wrong value is the safer default, not an error in the middle of an approval.
    expect(rememberFor(settings({ approveAlways: 'forever' }))).toBe('session');
    expect(settings({ entryAgent: 42 }).entryAgent).toBe('');
  });
});
