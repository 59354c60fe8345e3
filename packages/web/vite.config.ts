import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

// The app is served by `legion serve` from its own origin, offline: relative asset paths, no CDN,
// every asset bundled (fonts are the system's). The browser tests build nothing: they use dist/.
export default defineConfig({
  base: './',
  plugins: [preact()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // One small app: a single chunk loads faster than a waterfall of tiny ones.
    assetsInlineLimit: 0,
    reportCompressedSize: true,
  },
});
