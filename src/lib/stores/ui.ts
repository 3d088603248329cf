import { persistentMap } from '@nanostores/persistent';
import type { MenuItem, PublicSettings } from '../../../common/schemas/site.js';
import { getPublicSettings } from '../runtime.js';
import { registerReset } from './reset.js';

/**
 * UI settings (docs/product.md): persisted to localStorage, one key per field under the `ui:` prefix
 * (`ui:theme`, `ui:siteName`, …, values JSON-encoded), reloaded from it, and refreshed from the page's
 * `#public-settings` on load so admin changes win over stale copies.
 */
export type Theme = 'light' | 'dark';

export interface UiSettings {
  theme: Theme;
  siteName: string;
  logo: string;
  menus: MenuItem[];
  favicon: string;
  loginPlaceholderImage: string;
  footerContent: string;
  currencySymbol: string;
  currency: string;
}

export const UI_STORAGE_PREFIX = 'ui:';

export const DEFAULT_UI: Readonly<UiSettings> = Object.freeze({
  theme: 'light',
  siteName: '',
  logo: '',
  menus: [],
  favicon: '',
  loginPlaceholderImage: '',
  footerContent: '',
  currencySymbol: '$',
  currency: 'USD',
});

type UiValue = UiSettings[keyof UiSettings];

export const ui = persistentMap<UiSettings>(UI_STORAGE_PREFIX, { ...DEFAULT_UI, menus: [] }, {
  encode: (value: UiValue) => JSON.stringify(value),
  decode: (encoded: string): UiValue => {
    try {
      return JSON.parse(encoded) as UiValue;
    } catch {
      // a value written by something else: keep it as a string rather than break the page
      return encoded;
    }
  },
});

/** The UI fields of the public settings (their names differ: `logoUrl` → `logo`). */
export function uiFromSettings(s: Partial<PublicSettings>): Partial<UiSettings> {
  const out: Partial<UiSettings> = {};
  if (typeof s.siteName === 'string') out.siteName = s.siteName;
  if (typeof s.logoUrl === 'string') out.logo = s.logoUrl;
  if (Array.isArray(s.menus)) out.menus = s.menus;
  if (typeof s.favicon === 'string') out.favicon = s.favicon;
  if (typeof s.loginPlaceholderImage === 'string') out.loginPlaceholderImage = s.loginPlaceholderImage;
  if (typeof s.footerContent === 'string') out.footerContent = s.footerContent;
  if (typeof s.currencySymbol === 'string' && s.currencySymbol) out.currencySymbol = s.currencySymbol;
  if (typeof s.currency === 'string' && s.currency) out.currency = s.currency;
  return out;
}

/** Apply the public settings (given, else read from `#public-settings`); the theme is left as stored. */
export function hydrateUi(settings: Partial<PublicSettings> | null = getPublicSettings()): void {
  if (!settings) return;
  for (const [key, value] of Object.entries(uiFromSettings(settings)) as Array<[keyof UiSettings, UiValue]>) {
    ui.setKey(key, value as never);
  }
}

export function applyTheme(theme: Theme): void {
  if (typeof document !== 'undefined') document.documentElement.dataset.theme = theme;
}

export function setTheme(theme: Theme): void {
  ui.setKey('theme', theme);
  applyTheme(theme);
}

/** Back to the defaults, then the current page's settings (the initial state of this page). */
export function resetUi(): void {
  ui.set({ ...DEFAULT_UI, menus: [] });
  applyTheme(DEFAULT_UI.theme);
  hydrateUi();
}

registerReset('ui', resetUi);

if (typeof document !== 'undefined') {
  hydrateUi();
  const theme = ui.get().theme;
  if (theme === 'dark' || theme === 'light') applyTheme(theme);
}
