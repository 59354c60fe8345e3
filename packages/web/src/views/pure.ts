import { Component, createElement, type ComponentChildren, type FunctionComponent } from 'preact';

/**
 * A component that renders again only when one of its props changed (compared with ===), as
 * preact/compat's `memo` does. Not compat itself: importing it installs React-compatibility hooks
 * on every element of the app (onChange becomes onInput, among others).
 *
 * What it is for: parts of a list where one event changes one part (a turn's row, a graph edge) and
 * parts costly to draw again (a message's markdown: a 200-message conversation was parsed again at
 * every participant's state change, bench/serve-events.mjs with BENCH_SERVE_HISTORY=200).
 */
export function pure<Props extends object>(render: FunctionComponent<Props>): FunctionComponent<Props> {
  class Pure extends Component<Props> {
    override shouldComponentUpdate(next: Props): boolean {
      return differs(this.props, next);
    }
    override render(props: Props): ComponentChildren {
      // The component itself one level down (as compat's memo does): its hooks are its own.
      return createElement(render, props);
    }
  }
  Object.defineProperty(Pure, 'name', { value: `Pure(${render.name})` });
  return Pure as unknown as FunctionComponent<Props>;
}

function differs(before: object, after: object): boolean {
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  for (const key in a) if (a[key] !== b[key]) return true;
  for (const key in b) if (!(key in a)) return true;
  return false;
}
