/** Where each node of the conversation graph sits, and the path of each arrow. Hand-rolled: a ring. */
export interface Point {
  x: number;
  y: number;
}

export const NODE_RADIUS = 30;

/** Nodes on a circle, the first (the user) at the top. */
export function ringLayout(ids: readonly string[], width: number, height: number): Map<string, Point> {
  const positions = new Map<string, Point>();
  const radius = Math.max(60, Math.min(width, height) / 2 - NODE_RADIUS - 30);
  ids.forEach((id, index) => {
    const angle = -Math.PI / 2 + (2 * Math.PI * index) / Math.max(1, ids.length);
    positions.set(id, { x: width / 2 + radius * Math.cos(angle), y: height / 2 + radius * Math.sin(angle) });
  });
  return positions;
}

/** A curved arrow from one node's rim to the other's: A→B and B→A bend to opposite sides (the bend is relative to the direction). */
export function arrowPath(from: Point, to: Point): { d: string; label: Point } {
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const length = Math.hypot(dx, dy) || 1;
  const ux = dx / length;
  const uy = dy / length;
  const bend = 18;
  const mid = { x: (from.x + to.x) / 2 - uy * bend, y: (from.y + to.y) / 2 + ux * bend };
  const start = towards(from, mid, NODE_RADIUS);
  const end = towards(to, mid, NODE_RADIUS + 6);
  const label = { x: 0.25 * start.x + 0.5 * mid.x + 0.25 * end.x, y: 0.25 * start.y + 0.5 * mid.y + 0.25 * end.y };
  return { d: `M ${round(start.x)} ${round(start.y)} Q ${round(mid.x)} ${round(mid.y)} ${round(end.x)} ${round(end.y)}`, label };
}

function towards(from: Point, to: Point, distance: number): Point {
  const length = Math.hypot(to.x - from.x, to.y - from.y) || 1;
  return { x: from.x + ((to.x - from.x) / length) * distance, y: from.y + ((to.y - from.y) / length) * distance };
}

const round = (value: number): number => Math.round(value * 10) / 10;
