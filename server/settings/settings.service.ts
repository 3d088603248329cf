import type { Db } from '../db/database.js';
import type { PublicSettings } from '../../common/schemas/site.js';
import { readAllSettings, upsertSetting } from './settings.repository.js';
import { settingDefs, type SettingKey, type SettingValue } from './settings.defaults.js';

/**
 * Settings are read on every page render, so they are cached for a short time; a write on this
 * instance clears the cache at once, other instances pick it up when their cache expires.
 */
export class SettingsService {
  private cache: { at: number; values: Map<string, unknown> } | undefined;
  private loading: Promise<Map<string, unknown>> | undefined;

  constructor(
    private readonly db: Db,
    private readonly cacheMs: number,
  ) {}

  private async values(): Promise<Map<string, unknown>> {
    if (this.cache && Date.now() - this.cache.at < this.cacheMs) return this.cache.values;
    // Collapse concurrent misses into one query.
    this.loading ??= readAllSettings(this.db)
      .then((values) => {
        this.cache = { at: Date.now(), values };
        return values;
      })
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }

  async get<K extends SettingKey>(key: K): Promise<SettingValue<K>> {
    const values = await this.values();
    return (values.has(key) ? values.get(key) : settingDefs[key].default) as SettingValue<K>;
  }

  async set<K extends SettingKey>(key: K, value: SettingValue<K>): Promise<void> {
    const def = settingDefs[key];
    await upsertSetting(this.db, key, value, def.group, def.public);
    this.invalidate();
  }

  invalidate(): void {
    this.cache = undefined;
  }

  /** The public settings, optionally only those of one group (`GET /settings/public?group=`). */
  async getPublic(group?: string): Promise<Partial<PublicSettings>> {
    const all = await this.getPublicAll();
    if (!group) return all;
    const picked: Record<string, unknown> = {};
    for (const [key, def] of Object.entries(settingDefs)) {
      if (def.public && def.group === group) picked[key] = all[key as keyof PublicSettings];
    }
    return picked as Partial<PublicSettings>;
  }

  async getPublicAll(): Promise<PublicSettings> {
    const values = await this.values();
    const read = <K extends SettingKey>(key: K) => (values.has(key) ? values.get(key) : settingDefs[key].default) as SettingValue<K>;
    const captchaSecret = read('captchaSecret');
    return {
      siteName: read('siteName'),
      logoUrl: read('logoUrl'),
      favicon: read('favicon'),
      loginPlaceholderImage: read('loginPlaceholderImage'),
      menus: read('menus'),
      footerContent: read('footerContent'),
      currency: read('currency'),
      currencySymbol: read('currencySymbol'),
      maintenanceMode: Boolean(read('maintenanceMode')),
      captchaEnabled: Boolean(captchaSecret && read('captchaSiteKey')),
      captchaSiteKey: read('captchaSiteKey'),
    };
  }
}
