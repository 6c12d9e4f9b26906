import type { ComponentType } from "preact";

/** Where the node serves the app (vite.config.ts `base`, src/api/dashboard.ts). */
export const BASE = "/dashboard";

/** The dashboard URL of an in-app path: `href("/peers")` is "/dashboard/peers". */
export const href = (path: string): string => `${BASE}${path === "/" ? "" : path}`;

/** A page of the app by URL (routes.tsx lists them; pages/Explorer.tsx adds the explorer's). */
export interface AppRoute {
  /** A preact-iso pattern under BASE ("/explorer/block/:blockId"). */
  path: string;
  // biome-ignore lint/suspicious/noExplicitAny: each page takes its own route parameters
  component: ComponentType<any>;
}
