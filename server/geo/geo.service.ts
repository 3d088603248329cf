import geoip from 'geoip-lite';
import type { Db } from '../db/database.js';
import { nowIso } from '../db/ids.js';

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
    const rows = await this.db.selectFrom('countryBlocks').select('countryCode').execute();
    this.blocked = { at: Date.now(), codes: new Set(rows.map((r) => r.countryCode)) };
    return this.blocked.codes;
  }

  async isBlocked(country: string | null): Promise<boolean> {
    if (!country) return false;
    return (await this.blockedCountries()).has(country);
  }

  async block(code: string): Promise<void> {
    await this.db
      .insertInto('countryBlocks')
      .values({ countryCode: code.toUpperCase(), createdAt: nowIso() })
      .onConflict((oc) => oc.column('countryCode').doNothing())
      .execute();
    this.blocked = undefined;
  }

  async unblock(code: string): Promise<void> {
    await this.db.deleteFrom('countryBlocks').where('countryCode', '=', code.toUpperCase()).execute();
    this.blocked = undefined;
  }
}
