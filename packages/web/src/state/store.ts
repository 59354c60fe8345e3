import { useEffect, useState } from 'preact/hooks';
import { initialState, type AppState } from './app-state.js';

type Listener = (state: AppState) => void;

/** The one state of the app; views read it through `useAppState` and never change it themselves. */
export class Store {
  #state: AppState = initialState;
  readonly #listeners = new Set<Listener>();

  get state(): AppState {
    return this.#state;
  }

  update(change: (state: AppState) => AppState): void {
    const next = change(this.#state);
    if (next === this.#state) return;
    this.#state = next;
    for (const listener of this.#listeners) listener(next);
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

export function useAppState(store: Store): AppState {
  const [state, setState] = useState(store.state);
  useEffect(() => {
    setState(store.state);
    return store.subscribe(setState);
  }, [store]);
  return state;
}
