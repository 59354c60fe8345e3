// tsc keeps the shebang but not the executable bit; npm links the bin either way, this is for direct runs.
import { chmodSync } from 'node:fs';
chmodSync(new URL('../dist/legion.js', import.meta.url), 0o755);
