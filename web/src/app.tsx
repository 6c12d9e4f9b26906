import { Component, type ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { LocationProvider, Route, Router, useLocation } from "preact-iso";
import { ErrorNote } from "./components";
import { type ConnectionState, events } from "./events";
import { NodeInfoProvider, useNodeInfo } from "./nodeInfo";
import { NotFound } from "./pages/NotFound";
import { BASE, href } from "./paths";
import { NAV, ROUTES } from "./routes";

/**
 * The app shell: a header (the node's name, its network, synced or not, the event API's
 * connection), the navigation (a menu button below `48rem` of width), and the current page in
 * `<main>`. Landmarks and labels as WAI-ARIA's landmark pattern asks; a skip link first.
 */

/** Whether `path` (without BASE) is the nav entry's page or one below it. */
function isCurrent(path: string, match: string): boolean {
  if (match === "/") return path === "/" || path === "";
  return path === match || path.startsWith(`${match}/`);
}

/** A page that throws while rendering shows its failure in words instead of a blank page. */
class PageBoundary extends Component<{ children: ComponentChildren }, { error?: string }> {
  override state: { error?: string } = {};

  static override getDerivedStateFromError(e: unknown): { error: string } {
    return { error: e instanceof Error ? e.message : String(e) };
  }

  override render() {
    if (this.state.error) {
      return (
        <ErrorNote
          message={`This page failed: ${this.state.error}`}
          retry={() => this.setState({ error: undefined })}
        />
      );
    }
    return this.props.children;
  }
}

function StatusBadges() {
  const { data: info, error } = useNodeInfo();
  const [connection, setConnection] = useState<ConnectionState>(events.state);
  useEffect(() => events.onState(setConnection), []);
  if (error && !info) {
    return (
      <p class="badges">
        <span class="badge bad">node unreachable</span>
      </p>
    );
  }
  if (!info) {
    return (
      <p class="badges">
        <span class="badge">connecting…</span>
      </p>
    );
  }
  const synced = info.status.isSynced && info.status.isHealthy;
  return (
    <p class="badges">
      <span class="badge" data-network={info.protocol.networkName}>
        network <strong>{info.protocol.networkName}</strong>
      </span>
      <span class={`badge ${synced ? "good" : "bad"}`} data-synced={String(info.status.isSynced)}>
        {info.status.isSynced ? (info.status.isHealthy ? "synced" : "synced, not healthy") : "not synced"}
      </span>
      <span class={`badge ${connection === "connected" ? "good" : "warn"}`} title="the event API (MQTT over WebSocket)">
        events {connection === "connected" ? "live" : connection}
      </span>
    </p>
  );
}

function Header() {
  const { path } = useLocation();
  const [open, setOpen] = useState(false);
  const inApp = path.startsWith(BASE) ? path.slice(BASE.length) || "/" : path;
  // a page change closes the menu
  useEffect(() => setOpen(false), [path]);
  return (
    <header class="site-header">
      <div class="brand-row">
        <a class="brand" href={href("/")}>
          ledger-node
        </a>
        <StatusBadges />
        <button
          type="button"
          class="menu-button"
          aria-expanded={open}
          aria-controls="site-nav"
          onClick={() => setOpen(!open)}
        >
          Menu
        </button>
      </div>
      <nav id="site-nav" aria-label="Main" class={open ? "open" : ""}>
        <ul>
          {NAV.map((item) => (
            <li key={item.path}>
              <a href={href(item.path)} aria-current={isCurrent(inApp, item.match) ? "page" : undefined}>
                {item.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
    </header>
  );
}

export function App() {
  return (
    <LocationProvider scope={BASE}>
      <NodeInfoProvider>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <Header />
        <main id="main" tabIndex={-1}>
          <PageBoundary>
            <Router>
              {[
                ...ROUTES.map((r) => <Route key={r.path} path={href(r.path)} component={r.component} />),
                <Route key="default" default component={NotFound} />,
              ]}
            </Router>
          </PageBoundary>
        </main>
        <footer class="site-footer">
          <p>
            The node's public REST and event APIs, read by this page. <a href="/api/openapi.json">OpenAPI document</a>
          </p>
        </footer>
      </NodeInfoProvider>
    </LocationProvider>
  );
}

/** Shown instead of the app when it cannot start at all. */
export function Failed({ message }: { message: string }) {
  return <ErrorNote message={`The dashboard failed to start: ${message}`} />;
}
