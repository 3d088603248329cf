import { countries, languages, getEmojiFlag, type TCountryCode } from 'countries-list';
import { z } from 'zod';
import type { ApiApp } from '../http/types.js';
import { countryItemSchema, languageItemSchema, phoneCodeItemSchema, profileOptionsSchema } from '../../common/schemas/site.js';
import { profileOptions } from '../../common/profile-options.js';
import { route } from '../http/route.js';

// Built once: the dataset is static for the life of the process.
const countryList = Object.entries(countries)
  .map(([code, c]) => ({ code, name: c.name, flag: getEmojiFlag(code as TCountryCode) }))
  .sort((a, b) => a.name.localeCompare(b.name));
const languageList = Object.entries(languages)
  .map(([code, l]) => ({ code, name: l.name, native: l.native }))
  .sort((a, b) => a.name.localeCompare(b.name));
const phoneCodeList = Object.entries(countries)
  .flatMap(([code, c]) => c.phone.map((p) => ({ code, name: c.name, dialCode: `+${p}` })))
  .sort((a, b) => a.name.localeCompare(b.name));

/** A handler answering one of these lists, which browsers and proxies may keep for a day. */
const staticList =
  <T>(list: T) =>
  async (_req: unknown, reply: { header(name: string, value: string): unknown }): Promise<T> => {
    reply.header('cache-control', 'public, max-age=86400');
    return list;
  };

export async function listsRoutes(app: ApiApp): Promise<void> {
  app.get(
    '/countries/list',
    route({ access: 'public', tags: ['lists'], summary: 'Every country: ISO code, English name and flag emoji, by name', response: { 200: z.array(countryItemSchema) } }),
    staticList(countryList),
  );
  app.get(
    '/languages/list',
    route({ access: 'public', tags: ['lists'], summary: 'Every language: ISO 639-1 code, English and native name, by name', response: { 200: z.array(languageItemSchema) } }),
    staticList(languageList),
  );
  app.get(
    '/phone-codes/list',
    route({
      access: 'public',
      tags: ['lists'],
      summary: 'Dialling codes by country (a country with several codes is listed once per code), by name',
      response: { 200: z.array(phoneCodeItemSchema) },
    }),
    staticList(phoneCodeList),
  );
  app.get(
    '/user-additional',
    route({
      access: 'public',
      tags: ['lists'],
      summary: 'Choices for the optional profile fields (gender, orientation, ethnicity, body type, hair, eyes, height, weight)',
      response: { 200: profileOptionsSchema },
    }),
    staticList(profileOptions),
  );
}
