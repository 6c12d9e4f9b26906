import preact from "@preact/preset-vite";
import { defineConfig } from "vite";

/**
 * The dashboard's build: a static bundle in `dist/web` that the node serves at `/dashboard/`
 * (src/api/dashboard.ts). Every asset is bundled (no CDN: the dashboard works offline) under
 * `assets/` with a content hash in its name, which is what lets the node cache them for a year.
 * Run by scripts/build-web.mjs, which builds only when the sources changed.
 */
const webRoot = decodeURIComponent(new URL(".", import.meta.url).pathname);

export default defineConfig({
  root: webRoot,
  base: "/dashboard/",
  plugins: [preact()],
  // the build is driven by scripts/build-web.mjs with its own output folder
  logLevel: "warn",
  build: {
    outDir: `${webRoot}../dist/web`,
    emptyOutDir: true,
    assetsDir: "assets",
    target: "es2022",
    sourcemap: false,
    // the MQTT client alone is about 350 kB before compression
    chunkSizeWarningLimit: 1024,
  },
});
