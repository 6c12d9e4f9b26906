/** Where the node serves the app (vite.config.ts `base`, src/api/dashboard.ts). */
export const BASE = "/dashboard";

/** The dashboard URL of an in-app path: `href("/peers")` is "/dashboard/peers". */
export const href = (path: string): string => `${BASE}${path === "/" ? "" : path}`;
