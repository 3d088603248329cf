import geoip from 'geoip-lite';
import type { Db } from '../db/database.js';
import { blockCountry, blockedCountryCodes, unblockCountry } from './geo.repository.js';

/**
 * Country of a visitor from the offline GeoIP database shipped with geoip-lite (no network call),
 * or from a trusted proxy header (e.g. cf-ipcountry) when COUNTRY_HEADER is configured.
 */
export class GeoService {
  private blocked: { at: number; codes: Set<string> } | undefined;

  constructor(
    private readonly db: Db,
    private readonly countryHeader: string | undefined,
    private readonly cacheMs: number,
  ) {}

  countryOf(ip: string | undefined, headers: Record<string, string | string[] | undefined>): string | null {
    if (this.countryHeader) {
      const value = headers[this.countryHeader];
      const code = (Array.isArray(value) ? value[0] : value)?.trim().toUpperCase();
      if (code && /^[A-Z]{2}$/.test(code)) return code;
    }
    if (!ip) return null;
    const clean = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
    return geoip.lookup(clean)?.country || null;
  }

  async blockedCountries(): Promise<Set<string>> {
    if (this.blocked && Date.now() - this.blocked.at < this.cacheMs) return this.blocked.codes;
    this.blocked = { at: Date.now(), codes: new Set(await blockedCountryCodes(this.db)) };
    return this.blocked.codes;
  }

  async isBlocked(country: string | null): Promise<boolean> {
    if (!country) return false;
    return (await this.blockedCountries()).has(country);
  }

  async block(code: string): Promise<void> {
    await blockCountry(this.db, code.toUpperCase());
    this.blocked = undefined;
  }

  async unblock(code: string): Promise<void> {
    await unblockCountry(this.db, code.toUpperCase());
    this.blocked = undefined;
  }
}
