import type { PublicSettings } from '../../common/schemas/site.js';
import type { RuntimeConfig } from '../../common/runtime-config.js';

/**
 * What the page hands to the browser: `src/components/Head.astro` renders the runtime config and the
 * public settings as JSON `<script>` tags. Read on every call (the tags are tiny), so nothing is cached
 * across tests or pages.
 */

export const RUNTIME_CONFIG_ID = 'runtime-config';
export const PUBLIC_SETTINGS_ID = 'public-settings';

/** Used when the tag is missing (unit tests, the bare public layout rendered without Head). */
export const DEFAULT_RUNTIME_CONFIG: RuntimeConfig = {
  apiBase: '/api',
  socketUrl: '',
  socketPath: '/socket.io',
  env: 'production',
};

/** The parsed JSON of `<script type="application/json" id={id}>`, or null when absent or malformed. */
export function readJsonScript<T>(id: string): T | null {
  if (typeof document === 'undefined') return null;
  const text = document.getElementById(id)?.textContent;
  if (!text) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

export function getRuntimeConfig(): RuntimeConfig {
  return { ...DEFAULT_RUNTIME_CONFIG, ...(readJsonScript<Partial<RuntimeConfig>>(RUNTIME_CONFIG_ID) ?? {}) };
}

/** The site's public settings (docs/product.md, Site settings), or null outside a rendered page. */
export function getPublicSettings(): PublicSettings | null {
  return readJsonScript<PublicSettings>(PUBLIC_SETTINGS_ID);
}
