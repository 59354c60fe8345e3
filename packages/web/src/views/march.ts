import type { RefObject } from 'preact';
import { useEffect } from 'preact/hooks';

/** A lit edge's dashes (8 on, 5 off) move one quarter of their 13 px period a step. */
export const MARCH_STEPS = 4;
const STEP_MS = 200;

/**
 * Marches the dashes of the graph's lit edges: steps `--march` (0…3, which the stylesheet turns
 * into a dash offset) on the element while `running`, and not at all for a user who asks for
 * reduced motion. A timer and not a CSS animation: an SVG stroke is painted on the main thread,
 * and while any CSS animation runs Chromium renders every frame (60 a second), changed or not;
 * in ten tabs that was most of the machine while a turn ran, and events reached the page
 * hundreds of ms late. Five steps a second render five frames.
 */
export function useMarch(ref: RefObject<SVGSVGElement | null>, running: boolean): void {
  useEffect(() => {
    const element = ref.current;
    if (!running || element === null || matchMedia('(prefers-reduced-motion: reduce)').matches) return;
    let step = 0;
    const timer = setInterval(() => {
      step = (step + 1) % MARCH_STEPS;
      element.style.setProperty('--march', String(step));
    }, STEP_MS);
    return () => clearInterval(timer);
  }, [ref, running]);
}
