import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Insertable, Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { AppConfig } from '../config.js';
import type { Db } from '../db/database.js';
import { newId, nowIso } from '../db/ids.js';
import type {
  Access,
  BannersTable,
  CategoriesTable,
  CategoryGroup,
  ContentCategoriesTable,
  ContentTagsTable,
  Database,
  FilesTable,
  GalleriesTable,
  ObjectType,
  PerformersTable,
  PhotosTable,
  PostMediaTable,
  PostsTable,
  ProductsTable,
  UsersTable,
  VideosTable,
} from '../db/schema.js';
import { hashPassword } from '../auth/password.js';
import { createStorage, type Storage } from '../media/storage.js';
import { generateTestVideo, extractPoster, makeTeaser, resolveFfmpeg, type TestPattern } from '../media/ffmpeg.js';
import { teaserLimit } from '../media/teaser-rule.js';
import { PRIVATE_THUMB_VARIANT } from '../media/photo-thumbs.js';
import { initialsOf, makeThumbnail, renderArt, type ImageResult } from '../media/images.js';
import { seededRandom } from '../../common/random.js';
import { SettingsService } from '../settings/settings.service.js';
import { countOf } from '../../common/plural.js';
import { demoFanCount, demoFanNames, seedAudience, type AudienceItem } from './audience.js';

/**
 * Demo data: a believable site (12 performers with videos, galleries, products and posts with pictures (free, for
 * subscribers, pay-per-view); the site's posts, pages, banners,
 * packages, a coupon) plus three accounts to log in with. Media are real files generated locally
 * (sharp for pictures, ffmpeg for clips). Refuses to run on a database that already has users.
 *
 * Every number the site shows is counted from rows (docs/architecture.md, "Where the numbers come from"): nothing
 * here writes a made-up counter. The content counters (videos, photos, galleries, products of a performer, photos of
 * a gallery) are the rows planned below; subscribers, views, likes, favourites and comments come from a few dozen
 * demo fans who subscribe, watch, react and comment through the app's own code (./audience.ts).
 */

export const DEFAULT_DEMO_PASSWORD = 'demo-password-123';

export interface SeedOptions {
  db: Db;
  config: AppConfig;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /**
   * 1 = the normal demo site. Below 1 shrinks the content per performer (quick tests, at least one of each);
   * above 1 adds performers (round(12 * scale)) with the full content each.
   */
  scale?: number;
  /** Defaults to env DEMO_PASSWORD, then DEFAULT_DEMO_PASSWORD. */
  password?: string;
  /** Where media go; defaults to local disk under config.mediaDir. */
  storage?: Storage;
}

export interface DemoAccount {
  email: string;
  username: string;
  role: 'admin' | 'performer' | 'user';
}

export interface DemoCredentials {
  password: string;
  admin: DemoAccount;
  performer: DemoAccount;
  fan: DemoAccount;
  /** The other performers log in with the same password. */
  otherPerformerEmails: string[];
}

export interface SeedResult {
  seeded: boolean;
  credentials?: DemoCredentials;
  /** Rows inserted per table. */
  counts?: Record<string, number>;
  elapsedMs?: number;
}

// ---------------------------------------------------------------------------------------------------------------
// Content of the demo site.

type CategoryDef = { slug: string; name: string };
const categoryDefs: Record<'performer' | 'video' | 'gallery' | 'product', CategoryDef[]> = {
  performer: [
    { slug: 'fitness', name: 'Fitness & Yoga' }, { slug: 'cosplay', name: 'Cosplay' }, { slug: 'art', name: 'Art & Design' },
    { slug: 'dance', name: 'Dance' }, { slug: 'cooking', name: 'Food & Cooking' }, { slug: 'music', name: 'Music' },
    { slug: 'fashion', name: 'Fashion & Beauty' }, { slug: 'travel', name: 'Travel' }, { slug: 'gaming', name: 'Gaming' },
    { slug: 'comedy', name: 'Comedy' },
  ],
  video: [
    { slug: 'tutorials', name: 'Tutorials' }, { slug: 'behind-the-scenes', name: 'Behind the scenes' }, { slug: 'vlogs', name: 'Vlogs' },
    { slug: 'workouts', name: 'Workouts' }, { slug: 'performances', name: 'Performances' }, { slug: 'q-and-a', name: 'Q&A' },
  ],
  gallery: [
    { slug: 'photoshoots', name: 'Photoshoots' }, { slug: 'behind-the-scenes', name: 'Behind the scenes' }, { slug: 'travel-diaries', name: 'Travel diaries' },
  ],
  product: [
    { slug: 'merch', name: 'Merch' }, { slug: 'prints', name: 'Prints & posters' }, { slug: 'digital-downloads', name: 'Digital downloads' },
    { slug: 'accessories', name: 'Accessories' },
  ],
};

interface ProductDef { name: string; type: 'physical' | 'digital'; category: string; price: number; description: string }
interface PerformerDef {
  name: string;
  username: string;
  gender: 'female' | 'male' | 'non-binary';
  country: string;
  bio: string;
  tagline: string;
  categories: string[];
  tags: string[];
  /** [title, video category slug] */
  videos: Array<[string, string]>;
  /** [title, gallery category slug] */
  galleries: Array<[string, string]>;
  products: ProductDef[];
}

const performerDefs: PerformerDef[] = [
  {
    name: 'Mia Rivers', username: 'miarivers', gender: 'female', country: 'US', tagline: 'Yoga, strength and slow mornings',
    bio: 'Certified yoga teacher from Santa Cruz. New flows every Monday, strength sessions on Thursdays and honest talk about recovery.',
    categories: ['fitness'], tags: ['yoga', 'stretching', 'mobility', 'strength'],
    videos: [
      ['Morning flow: 20-minute full-body stretch', 'workouts'], ['Hip openers for desk workers', 'tutorials'],
      ['Core strength without equipment', 'workouts'], ['A week of my meal prep', 'vlogs'],
      ['Your questions about flexibility', 'q-and-a'], ['Sunset session on the beach', 'performances'],
    ],
    galleries: [['Beach sunrise shoot', 'photoshoots'], ['Studio day', 'behind-the-scenes']],
    products: [
      { name: 'Eco cork yoga block', type: 'physical', category: 'accessories', price: 2400, description: 'The block I use in every video, made from natural cork.' },
      { name: '4-week flexibility plan (PDF)', type: 'digital', category: 'digital-downloads', price: 999, description: 'Day-by-day plan with 28 short sessions and progress sheets.' },
      { name: 'Signed studio poster', type: 'physical', category: 'prints', price: 1800, description: 'A3 print from the Studio day shoot, signed by hand.' },
    ],
  },
  {
    name: 'Luna Vega', username: 'lunavega', gender: 'female', country: 'ES', tagline: 'Cosplay builds from foam to finish',
    bio: 'Cosplayer and prop maker from Valencia. I share every build step, from pattern to paint, plus convention diaries.',
    categories: ['cosplay', 'art'], tags: ['cosplay', 'props', 'crafting', 'conventions'],
    videos: [
      ['EVA foam armour: patterning basics', 'tutorials'], ['Convention day vlog', 'vlogs'], ['Painting weathered metal', 'tutorials'],
      ['Full costume reveal', 'performances'], ['Wig styling in 15 minutes', 'tutorials'],
    ],
    galleries: [['Knight armour photoshoot', 'photoshoots'], ['Workshop chaos', 'behind-the-scenes']],
    products: [
      { name: 'Armour pattern pack', type: 'digital', category: 'digital-downloads', price: 1299, description: 'Printable patterns for the full knight set, sized S to XL.' },
      { name: 'Enamel pin: Luna crest', type: 'physical', category: 'merch', price: 900, description: 'Hard enamel pin, 30 mm, gold plating.' },
      { name: 'Holographic sticker sheet', type: 'physical', category: 'merch', price: 600, description: 'Ten waterproof stickers from my favourite builds.' },
    ],
  },
  {
    name: 'Jade Thornton', username: 'jadethornton', gender: 'female', country: 'GB', tagline: 'Oil painting, slowly',
    bio: 'Painter working in oils and gouache in a tiny Bristol studio. Real-time painting sessions and honest critiques.',
    categories: ['art'], tags: ['painting', 'oils', 'gouache', 'studio'],
    videos: [
      ['Painting a stormy sea in oils', 'tutorials'], ['Studio tour 2024', 'behind-the-scenes'], ['Colour mixing for skin tones', 'tutorials'],
      ['Live painting: harbour at dusk', 'performances'],
    ],
    galleries: [['Finished works, spring', 'photoshoots']],
    products: [
      { name: 'Giclée print: Harbour at dusk', type: 'physical', category: 'prints', price: 3500, description: 'Archival print on cotton rag, 30 x 40 cm.' },
      { name: 'Brush set I actually use', type: 'physical', category: 'accessories', price: 2900, description: 'Six synthetic brushes, from the videos.' },
    ],
  },
  {
    name: 'Sofia Marin', username: 'sofiamarin', gender: 'female', country: 'BR', tagline: 'Dance every day',
    bio: 'Professional dancer and choreographer from Rio. Choreo breakdowns, rehearsals and stage nights.',
    categories: ['dance'], tags: ['dance', 'choreography', 'samba', 'rehearsal'],
    videos: [
      ['Samba basics step by step', 'tutorials'], ['Rehearsal week diary', 'vlogs'], ['Full choreography: Verão', 'performances'],
      ['Warm-up every dancer needs', 'workouts'], ['Stage night backstage', 'behind-the-scenes'],
    ],
    galleries: [['Carnival rehearsals', 'behind-the-scenes'], ['Stage lights', 'photoshoots']],
    products: [
      { name: 'Choreography notes: Verão', type: 'digital', category: 'digital-downloads', price: 799, description: 'Counts, formations and video timestamps for the full piece.' },
      { name: 'Rehearsal tee', type: 'physical', category: 'merch', price: 2200, description: 'Soft organic cotton, unisex fit.' },
    ],
  },
  {
    name: 'Chloe Bennett', username: 'chloebennett', gender: 'female', country: 'CA', tagline: 'Weeknight cooking, properly',
    bio: 'Former line cook from Toronto. Fast, seasonal food for people with jobs, plus the occasional baking disaster.',
    categories: ['cooking'], tags: ['cooking', 'recipes', 'baking', 'seasonal'],
    videos: [
      ['Five dinners from one roast chicken', 'tutorials'], ['Sourdough for impatient people', 'tutorials'], ['Farmers market haul', 'vlogs'],
      ['Knife skills in ten minutes', 'tutorials'], ['Answering your kitchen questions', 'q-and-a'], ['Holiday baking marathon', 'vlogs'],
    ],
    galleries: [['Autumn table', 'photoshoots']],
    products: [
      { name: 'Weeknight recipe book (PDF)', type: 'digital', category: 'digital-downloads', price: 1499, description: '40 recipes, shopping lists and a freezer plan.' },
      { name: 'Linen apron', type: 'physical', category: 'merch', price: 3200, description: 'Heavy linen with a deep pocket, the one from the videos.' },
      { name: 'Spice blend trio', type: 'physical', category: 'accessories', price: 1600, description: 'Three small-batch blends I use every week.' },
    ],
  },
  {
    name: 'Ava Sinclair', username: 'avasinclair', gender: 'female', country: 'AU', tagline: 'Songs from the spare room',
    bio: 'Singer-songwriter from Melbourne. Acoustic sessions, songwriting breakdowns and early demos before anyone else.',
    categories: ['music'], tags: ['acoustic', 'songwriting', 'guitar', 'live'],
    videos: [
      ['Acoustic session: Paper Boats', 'performances'], ['How I write a chorus', 'tutorials'], ['Demo to final mix', 'behind-the-scenes'],
      ['Tour diary: Sydney', 'vlogs'],
    ],
    galleries: [['Album cover outtakes', 'photoshoots'], ['On tour', 'travel-diaries']],
    products: [
      { name: 'Paper Boats EP (digital)', type: 'digital', category: 'digital-downloads', price: 700, description: 'Five songs with lyrics and chord sheets.' },
      { name: 'Vinyl: Paper Boats', type: 'physical', category: 'merch', price: 2800, description: '12-inch vinyl, 180 g, signed sleeve.' },
    ],
  },
  {
    name: 'Nina Okafor', username: 'ninaokafor', gender: 'female', country: 'NG', tagline: 'Style, thrifted and remade',
    bio: 'Stylist and sewist from Lagos. Thrift flips, lookbooks and the truth about fast fashion.',
    categories: ['fashion'], tags: ['fashion', 'sewing', 'thrift', 'lookbook'],
    videos: [
      ['Thrift flip: blazer to crop jacket', 'tutorials'], ['Autumn lookbook', 'performances'], ['Sewing machine basics', 'tutorials'],
      ['Market day in Lagos', 'vlogs'], ['Closet clear-out Q&A', 'q-and-a'],
    ],
    galleries: [['Autumn lookbook', 'photoshoots']],
    products: [
      { name: 'Crop jacket sewing pattern', type: 'digital', category: 'digital-downloads', price: 899, description: 'Printable pattern in six sizes with instructions.' },
      { name: 'Ankara tote bag', type: 'physical', category: 'accessories', price: 2500, description: 'Handmade from deadstock wax-print cotton.' },
      { name: 'Lookbook print set', type: 'physical', category: 'prints', price: 1900, description: 'Four A5 prints from the autumn lookbook.' },
    ],
  },
  {
    name: 'Ruby Castillo', username: 'rubycastillo', gender: 'female', country: 'MX', tagline: 'Slow travel with a backpack',
    bio: 'Travel filmmaker from Oaxaca. Long trips, small budgets, local food and the people who cook it.',
    categories: ['travel'], tags: ['travel', 'backpacking', 'food', 'filmmaking'],
    videos: [
      ['Oaxaca in three days', 'vlogs'], ['Packing light for a month', 'tutorials'], ['Street food of Mexico City', 'vlogs'],
      ['How I film alone', 'behind-the-scenes'], ['Cenote swim at dawn', 'performances'], ['Ask me about solo travel', 'q-and-a'],
    ],
    galleries: [['Yucatán road trip', 'travel-diaries'], ['Markets of Oaxaca', 'travel-diaries']],
    products: [
      { name: 'Mexico travel guide (PDF)', type: 'digital', category: 'digital-downloads', price: 1199, description: 'Routes, budgets and where to eat, updated this year.' },
      { name: 'Postcard set: Yucatán', type: 'physical', category: 'prints', price: 1200, description: 'Eight postcards from the road trip.' },
    ],
  },
  {
    name: 'Elena Petrova', username: 'elenapetrova', gender: 'female', country: 'DE', tagline: 'Ballet barre at home',
    bio: 'Former soloist now teaching in Berlin. Barre classes for adults, pointe diaries and the occasional performance.',
    categories: ['dance', 'fitness'], tags: ['ballet', 'barre', 'posture', 'flexibility'],
    videos: [
      ['Adult ballet barre, beginner', 'workouts'], ['Pointe shoe preparation', 'tutorials'], ['Adagio in the studio', 'performances'],
      ['A day at rehearsal', 'behind-the-scenes'],
    ],
    galleries: [['Studio portraits', 'photoshoots'], ['Berlin rehearsal days', 'behind-the-scenes']],
    products: [
      { name: 'Barre programme (PDF)', type: 'digital', category: 'digital-downloads', price: 1099, description: 'Eight progressive barre classes with diagrams.' },
      { name: 'Wrap cardigan', type: 'physical', category: 'merch', price: 3900, description: 'Soft knit wrap for warm-ups.' },
      { name: 'Resistance band set', type: 'physical', category: 'accessories', price: 1500, description: 'Three strengths, for the foot exercises.' },
    ],
  },
  {
    name: 'Kai Morgan', username: 'kaimorgan', gender: 'male', country: 'NZ', tagline: 'Mountains, boards and bad weather',
    bio: 'Skater and climber from Queenstown. Trail days, board builds and survival cooking on a camp stove.',
    categories: ['travel', 'fitness'], tags: ['outdoors', 'climbing', 'skateboarding', 'camping'],
    videos: [
      ['Building a longboard from scratch', 'tutorials'], ['Three days on the Routeburn track', 'vlogs'], ['Bouldering technique drills', 'workouts'],
      ['Camp stove breakfast', 'tutorials'], ['Gear I regret buying', 'q-and-a'],
    ],
    galleries: [['Fiordland in the rain', 'travel-diaries']],
    products: [
      { name: 'Longboard deck template', type: 'digital', category: 'digital-downloads', price: 599, description: 'Full-size printable template and build notes.' },
      { name: 'Trail beanie', type: 'physical', category: 'merch', price: 2000, description: 'Merino blend, one size.' },
    ],
  },
  {
    name: 'Leo Hart', username: 'leohart', gender: 'male', country: 'IE', tagline: 'Stand-up, sketches and nonsense',
    bio: 'Stand-up comedian from Dublin. Tour clips, sketches and long chats about the jokes that did not work.',
    categories: ['comedy'], tags: ['comedy', 'stand-up', 'sketches', 'podcast'],
    videos: [
      ['Ten minutes at the Laughter Lounge', 'performances'], ['Sketch: the group chat', 'performances'], ['Why that joke bombed', 'behind-the-scenes'],
      ['Tour van diaries', 'vlogs'], ['Writing session, live', 'tutorials'], ['Listener questions, badly answered', 'q-and-a'],
    ],
    galleries: [['Tour posters and nights', 'behind-the-scenes']],
    products: [
      { name: 'Tour poster, signed', type: 'physical', category: 'prints', price: 1500, description: 'A2 poster from the spring tour.' },
      { name: 'Full special (download)', type: 'digital', category: 'digital-downloads', price: 899, description: 'The hour-long special, yours to keep.' },
      { name: 'Heckler mug', type: 'physical', category: 'merch', price: 1400, description: 'Ceramic mug, dishwasher safe, mildly rude.' },
    ],
  },
  {
    name: 'Zoe Lambert', username: 'zoelambert', gender: 'female', country: 'FR', tagline: 'Cosy games and speedruns',
    bio: 'Streamer from Lyon. Cosy game playthroughs, speedrun routes and building a gaming setup on a budget.',
    categories: ['gaming'], tags: ['gaming', 'speedrun', 'setup', 'cosy games'],
    videos: [
      ['Speedrun route explained', 'tutorials'], ['Budget setup tour', 'behind-the-scenes'], ['Cosy farm game, episode 1', 'performances'],
      ['Community game night', 'vlogs'],
    ],
    galleries: [['Setup glow-up', 'behind-the-scenes'], ['Game night with friends', 'photoshoots']],
    products: [
      { name: 'Stream overlay pack', type: 'digital', category: 'digital-downloads', price: 999, description: 'Overlays, alerts and panels in three colourways.' },
      { name: 'Desk mat: pixel meadow', type: 'physical', category: 'accessories', price: 2600, description: '90 x 40 cm stitched-edge desk mat.' },
    ],
  },
];

const posts: Array<{ title: string; excerpt: string; paragraphs: string[] }> = [
  {
    title: 'Welcome to the new site',
    excerpt: 'A faster home for your favourite creators, with subscriptions, shops and more.',
    paragraphs: [
      'We rebuilt the site from the ground up so pages load quickly on any connection and videos start playing straight away.',
      'Follow creators for free, subscribe to see everything they publish, or buy single videos and products when you only want one thing.',
    ],
  },
  {
    title: 'How subscriptions work',
    excerpt: 'Monthly or yearly, cancel any time: here is what you get.',
    paragraphs: [
      'A subscription opens every video and gallery a creator publishes for subscribers, for as long as it runs.',
      'Yearly plans cost less per month. You can cancel at any time and keep access until the end of the period you paid for.',
    ],
  },
  {
    title: "Meet this month's featured creators",
    excerpt: 'Yoga, cosplay, cooking and stand-up: four creators we love.',
    paragraphs: [
      'Every month we pick a handful of creators whose work stood out. This month: flows with Mia, armour builds with Luna, weeknight dinners with Chloe and a lot of laughs with Leo.',
      'Visit their pages for free previews, then subscribe to see the rest.',
    ],
  },
  {
    title: 'Getting the most out of your membership',
    excerpt: 'Favourites, watch later and comments: small tools that make a difference.',
    paragraphs: [
      'Save videos to watch later, keep favourites in one place and leave comments: creators read them and often answer in their next video.',
      'Turn on email notifications to hear when a creator you subscribe to publishes something new.',
    ],
  },
  {
    title: 'New: shop physical and digital products',
    excerpt: 'Prints, merch and downloads straight from the creators.',
    paragraphs: [
      'Creators can now sell physical goods and digital downloads. Digital items are available from your orders page right after purchase.',
      'Physical orders show their delivery status as the creator ships them.',
    ],
  },
  {
    title: 'Community guidelines update',
    excerpt: 'Be kind, stay on topic and respect creators’ work.',
    paragraphs: [
      'Comments are for talking about the content. Harassment, spam and sharing paid content elsewhere are not allowed and lead to suspension.',
      'If you see something that breaks the rules, use the report link and our team will look at it within a day.',
    ],
  },
];

const pages: Array<{ slug: string; title: string; paragraphs: string[] }> = [
  {
    slug: 'terms',
    title: 'Terms of service',
    paragraphs: [
      'By creating an account you agree to these terms. You must be of legal age in your country to use the site.',
      'Subscriptions renew until cancelled. Purchases of single videos and digital products give you personal, non-transferable access.',
      'Creators own their content. Copying or redistributing it is not permitted.',
      'This is a demo site: no real payments are taken.',
    ],
  },
  {
    slug: 'privacy',
    title: 'Privacy policy',
    paragraphs: [
      'We store the information you give us (name, email, profile) and what is needed to run your account, such as subscriptions and orders.',
      'We use cookies to keep you signed in. We do not sell personal data.',
      'You can ask for a copy of your data or for its deletion at any time through the contact page.',
    ],
  },
];

/**
 * Performers' own posts (their Posts tab): pictures with a few words, free, for subscribers, or pay-per-view.
 * `performer` is an index into performerDefs (0 is the demo performer).
 */
const performerPostDefs: Array<{ performer: number; title: string; excerpt: string; paragraphs: string[]; access: Access; price?: number; pictures: number; daysAgo: number }> = [
  {
    performer: 0, title: 'New mat, same old sunrise', access: 'free', pictures: 2, daysAgo: 1.5,
    excerpt: 'Tried the new cork mat on the beach this morning. Verdict: sand everywhere, zero regrets.',
    paragraphs: ['Tried the new cork mat on the beach this morning. Verdict: sand everywhere, zero regrets.', 'Monday flow goes up tomorrow. Bring a towel.'],
  },
  {
    performer: 0, title: 'Behind the scenes: beach shoot', access: 'subscribers', pictures: 4, daysAgo: 4,
    excerpt: 'The outtakes, the wind, and the one shot that made it to the gallery.',
    paragraphs: [
      'The outtakes, the wind, and the one shot that made it to the gallery.',
      'We started at 5:40 and lost the light twice to clouds. Here is everything that did not make the cut, with notes on the poses I am working on this month.',
    ],
  },
  {
    performer: 0, title: 'Full sunrise set, uncut', access: 'sale', price: 499, pictures: 6, daysAgo: 8,
    excerpt: 'Every frame from the sunrise session, in full resolution, with my notes on each pose.',
    paragraphs: [
      'Every frame from the sunrise session, in full resolution, with my notes on each pose.',
      'Thank you for supporting the channel: these sets pay for the next retreat.',
    ],
  },
  {
    performer: 1, title: 'Workshop sneak peek', access: 'free', pictures: 2, daysAgo: 2,
    excerpt: 'The new helmet is primed. Paint starts this weekend.',
    paragraphs: ['The new helmet is primed. Paint starts this weekend.', 'Guess the colour scheme in the comments.'],
  },
  {
    performer: 1, title: 'Armour fitting, step by step', access: 'subscribers', pictures: 3, daysAgo: 6,
    excerpt: 'How I fit the chest plate without a second pair of hands.',
    paragraphs: ['How I fit the chest plate without a second pair of hands.', 'Straps, buckles and where the foam always tears: the full fitting, photo by photo.'],
  },
  {
    performer: 4, title: 'Recipe cards from this week', access: 'subscribers', pictures: 2, daysAgo: 3,
    excerpt: 'Printable cards for the three dinners from this week’s videos.',
    paragraphs: ['Printable cards for the three dinners from this week’s videos.', 'Shopping list on the back of each card.'],
  },
];

// ---------------------------------------------------------------------------------------------------------------

class SeedAbort extends Error {}

const DAY = 86_400_000;

/** Loads the demo site into an empty database; a database that has any user is left untouched. */
export async function seedDemo(opts: SeedOptions): Promise<SeedResult> {
  const { db, config, logger } = opts;
  const started = Date.now();
  const scale = opts.scale ?? 1;
  if (!Number.isFinite(scale) || scale <= 0) throw new Error(`scale must be a positive number, got ${scale}`);

  if (await hasUsers(db)) {
    logger.info('database already has users, demo data not loaded');
    return { seeded: false };
  }

  const password = opts.password ?? (process.env.DEMO_PASSWORD || DEFAULT_DEMO_PASSWORD);
  const storage = opts.storage ?? (await createStorage(config));
  const ffmpeg = await resolveFfmpeg();
  logger.info({ scale, ffmpeg: ffmpeg.path, mediaDir: config.mediaDir }, 'seeding demo data');

  const plan = buildPlan(scale, Date.now());
  const media = new MediaWriter(storage);
  const workDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'seed-media-'));
  try {
    // The demo fans share one hash of the same password (a hash per account would add seconds of argon2 to every
    // start; they all log in with the demo password anyway).
    const fanIds = new Set(plan.demoFans.map((u) => u.id));
    const named = plan.users.filter((u) => !fanIds.has(u.id));
    const [hashes, fanHash] = await Promise.all([
      Promise.all(named.map(() => hashPassword(password))),
      hashPassword(password),
      generateMedia(plan, media, workDir),
    ]);
    named.forEach((u, i) => (u.passwordHash = hashes[i]!));
    plan.demoFans.forEach((u) => (u.passwordHash = fanHash));
    const mediaMs = Date.now() - started;

    // Read before the transaction: on SQLite the one connection is the transaction's until it ends.
    const settings = new SettingsService(db, 0);
    const money = {
      currency: String(await settings.get('currency')).toUpperCase(),
      commissionBps: Number(await settings.get('commissionBps')),
      checkoutExpiryMinutes: Math.max(1, Number(await settings.get('checkoutExpiryMinutes')) || 30),
    };
    const rowsStarted = Date.now();
    const counts = await db.transaction().execute(async (trx) => {
      // Another process may have created users while media were generated.
      if (await hasUsers(trx)) throw new SeedAbort();
      const inserted = await insertPlan(trx, plan, media.rows);
      const audience = await seedAudience(trx, {
        fans: plan.demoFans.map((u) => ({ id: u.id!, email: u.email, createdAt: u.createdAt })),
        performers: plan.performers.map((p) => ({
          id: p.row.id, displayName: p.row.displayName, monthlyPrice: p.row.monthlyPrice ?? 0, yearlyPrice: p.row.yearlyPrice ?? 0, featured: p.row.featured === 1,
        })),
        items: audienceItems(plan),
        now: plan.now,
        scale,
        siteUrl: config.publicUrl.replace(/\/+$/, ''),
        appSecret: config.appSecret,
        ...money,
      });
      return { ...inserted, ...audience };
    });
    const rowsMs = Date.now() - rowsStarted;

    const credentials: DemoCredentials = {
      password,
      admin: { email: plan.admin.email, username: plan.admin.username, role: 'admin' },
      performer: { email: plan.demoPerformer.email, username: plan.demoPerformer.username, role: 'performer' },
      fan: { email: plan.fan.email, username: plan.fan.username, role: 'user' },
      otherPerformerEmails: plan.performers.slice(1).map((p) => p.user.email),
    };
    const elapsedMs = Date.now() - started;
    logger.info({ counts, mediaMs, rowsMs, elapsedMs }, 'demo data loaded');
    // The logins for machines; a person reads them in the plain block the caller prints (formatCredentials).
    logger.info({ credentials: { ...credentials, otherPerformerEmails: undefined } }, 'demo accounts');
    return { seeded: true, credentials, counts, elapsedMs };
  } catch (err) {
    await media.removeAll();
    if (err instanceof SeedAbort) {
      logger.info('database already has users, demo data not loaded');
      return { seeded: false };
    }
    throw err;
  } finally {
    await fsp.rm(workDir, { recursive: true, force: true });
  }
}

/** The demo logins in plain words, for a person reading the terminal (printed after seeding). */
export function formatCredentials(c: DemoCredentials): string {
  const row = (label: string, a: DemoAccount) => `  ${label.padEnd(10)} ${a.email}`;
  return [
    `Demo logins (password for all: ${c.password})`,
    row('admin', c.admin),
    row('performer', c.performer),
    row('fan', c.fan),
    `  The other ${c.otherPerformerEmails.length} performers: <username>@example.com, same password.`,
  ].join('\n');
}

async function hasUsers(db: Db | Transaction<Database>): Promise<boolean> {
  return (await db.selectFrom('users').select('id').limit(1).executeTakeFirst()) !== undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// The plan: every row, with ids and timestamps, before any media exist.

type Row<T> = Insertable<T>;
interface PlannedVideo { row: Row<VideosTable>; categorySlug: string; tags: string[]; clip: number }
interface PlannedPhoto { row: Row<PhotosTable>; portrait: boolean; blurred: boolean }
interface PlannedGallery { row: Row<GalleriesTable>; categorySlug: string; tags: string[]; photos: PlannedPhoto[] }
interface PlannedProduct { row: Row<ProductsTable>; def: ProductDef }
interface PlannedPerformer {
  user: Row<UsersTable>;
  row: Row<PerformersTable>;
  def: PerformerDef;
  videos: PlannedVideo[];
  galleries: PlannedGallery[];
  products: PlannedProduct[];
}
interface PlannedPost {
  row: Row<PostsTable>;
  performer: PlannedPerformer;
  media: Array<{ row: Row<PostMediaTable>; portrait: boolean }>;
}
interface Plan {
  now: number;
  users: Array<Row<UsersTable>>;
  admin: Row<UsersTable>;
  fan: Row<UsersTable>;
  /** The audience: plain accounts that subscribe, watch, react and comment (./audience.ts). */
  demoFans: Array<Row<UsersTable>>;
  demoPerformer: Row<UsersTable>;
  performers: PlannedPerformer[];
  categories: Map<string, Row<CategoriesTable>>;
  posts: Array<Row<PostsTable>>;
  performerPosts: PlannedPost[];
  banners: Array<{ row: Row<BannersTable>; performer: PlannedPerformer }>;
}

const clipCount = 8;

function buildPlan(scale: number, now: number): Plan {
  const rnd = seededRandom('demo-site');
  const at = (daysAgo: number) => {
    const ms = now - Math.round(daysAgo * DAY);
    return { ms, iso: nowIso(new Date(ms)) };
  };
  const users: Array<Row<UsersTable>> = [];
  const makeUser = (u: { email: string; username: string; name: string; role: 'admin' | 'performer' | 'user'; country: string | null; bio?: string }, daysAgo: number) => {
    const t = at(daysAgo);
    const row: Row<UsersTable> = {
      id: newId(t.ms),
      email: u.email.toLowerCase(),
      username: u.username,
      name: u.name,
      passwordHash: '',
      role: u.role,
      status: 'active',
      emailVerified: 1,
      avatarPath: null,
      coverPath: null,
      country: u.country,
      bio: u.bio ?? null,
      createdAt: t.iso,
      updatedAt: t.iso,
    };
    users.push(row);
    return row;
  };

  const admin = makeUser({ email: 'admin@example.com', username: 'admin', name: 'Site Admin', role: 'admin', country: 'US' }, 420);

  const categories = new Map<string, Row<CategoriesTable>>();
  for (const [group, defs] of Object.entries(categoryDefs) as Array<[CategoryGroup, CategoryDef[]]>) {
    defs.forEach((d, i) => {
      const t = at(410);
      categories.set(`${group}:${d.slug}`, {
        id: newId(t.ms), name: d.name, slug: d.slug, group, description: null, ordering: i, status: 'active', createdAt: t.iso, updatedAt: t.iso,
      });
    });
  }

  const performerTotal = scale > 1 ? Math.round(performerDefs.length * scale) : performerDefs.length;
  const perPerformer = (n: number) => (scale >= 1 ? n : Math.max(1, Math.round(n * scale)));
  const slugs = new Set<string>();
  const uniqueSlug = (text: string) => {
    const base = slugify(text) || 'item';
    let slug = base;
    for (let n = 2; slugs.has(slug); n++) slug = `${base}-${n}`;
    slugs.add(slug);
    return slug;
  };
  const monthlyPrices = [499, 799, 999, 1299, 1499, 1999];
  const salePrices = [499, 799, 999, 1499, 1999];
  const featuredIndexes = new Set([0, 1, 4, 10]);
  const performers: PlannedPerformer[] = [];

  for (let i = 0; i < performerTotal; i++) {
    const base = performerDefs[i % performerDefs.length]!;
    const round = Math.floor(i / performerDefs.length);
    const def: PerformerDef = round === 0 ? base : { ...base, name: `${base.name} ${round + 1}`, username: `${base.username}${round + 1}` };
    const joinedDaysAgo = 200 + rnd() * 180;
    const user = makeUser(
      { email: i === 0 ? 'performer@example.com' : `${def.username}@example.com`, username: def.username, name: def.name, role: 'performer', country: def.country, bio: def.bio },
      joinedDaysAgo,
    );
    const monthly = monthlyPrices[i % monthlyPrices.length]!;
    const featured = featuredIndexes.has(i) ? 1 : 0;
    const performer: PlannedPerformer = {
      user,
      def,
      row: {
        id: user.id,
        username: def.username,
        displayName: def.name,
        bio: def.bio,
        monthlyPrice: monthly,
        yearlyPrice: monthly * 10 + 9,
        commissionBps: null,
        status: 'active',
        approved: 1,
        featured,
        // Counted from the rows planned below, at the end of this performer's plan.
        videoCount: 0,
        photoCount: 0,
        galleryCount: 0,
        productCount: 0,
        gender: def.gender,
        country: def.country,
        createdAt: user.createdAt,
        updatedAt: user.createdAt,
      },
      videos: [],
      galleries: [],
      products: [],
    };

    const videoCount = perPerformer(def.videos.length);
    for (let j = 0; j < videoCount; j++) {
      const [title, categorySlug] = def.videos[j]!;
      const t = at(2 + rnd() * Math.min(170, joinedDaysAgo - 10));
      const access: Access =
        videoCount >= 3 ? (j === 0 ? 'free' : j === videoCount - 1 ? 'sale' : 'subscribers') : (['free', 'subscribers', 'sale'] as const)[(i + j) % 3]!;
      const tags = [def.tags[j % def.tags.length]!, def.tags[(j + 1) % def.tags.length]!, categorySlug.replace(/-/g, ' ')];
      performer.videos.push({
        categorySlug,
        tags,
        clip: (i * 3 + j) % clipCount,
        row: {
          id: newId(t.ms),
          performerId: user.id,
          status: 'active',
          title,
          slug: uniqueSlug(title),
          description: `${title}. ${def.tagline} with ${def.name.split(' ')[0]}.`,
          access,
          isSale: access === 'sale' ? 1 : 0,
          price: access === 'sale' ? salePrices[(i + j) % salePrices.length]! : 0,
          fileId: null,
          teaserFileId: null,
          thumbnailFileId: null,
          duration: null,
          processingStatus: 'ready',
          scheduledAt: null,
          publishedAt: t.iso,
          tags: JSON.stringify(tags),
          createdAt: t.iso,
          updatedAt: t.iso,
        },
      });
    }

    const galleryCount = perPerformer(def.galleries.length);
    for (let g = 0; g < galleryCount; g++) {
      const [title, categorySlug] = def.galleries[g]!;
      const t = at(2 + rnd() * Math.min(170, joinedDaysAgo - 10));
      const access: Access = g === 0 ? (i % 3 === 0 ? 'free' : 'subscribers') : i % 4 === 1 ? 'sale' : 'free';
      const id = newId(t.ms);
      const photoTotal = perPerformer(4 + ((i + g) % 3));
      const photos: PlannedPhoto[] = [];
      for (let k = 0; k < photoTotal; k++) {
        photos.push({
          portrait: (i + k) % 3 !== 0,
          // The first photo is the gallery cover, shown to everyone; the others are blurred when locked.
          blurred: access !== 'free' && k > 0,
          row: {
            id: newId(t.ms + k),
            performerId: user.id,
            status: 'active',
            galleryId: id,
            title: `${title} ${k + 1}/${photoTotal}`,
            fileId: null,
            thumbnailFileId: null,
            processingStatus: 'ready',
            position: k,
            publishedAt: t.iso,
            createdAt: t.iso,
            updatedAt: t.iso,
          },
        });
      }
      const tags = [def.tags[g % def.tags.length]!, 'photos'];
      performer.galleries.push({
        categorySlug,
        tags,
        photos,
        row: {
          id,
          performerId: user.id,
          status: 'active',
          title,
          slug: uniqueSlug(title),
          description: `${countOf(photoTotal, 'photo')}: ${title.toLowerCase()}.`,
          access,
          isSale: access === 'sale' ? 1 : 0,
          price: access === 'sale' ? 699 : 0,
          coverPhotoId: photos[0]?.row.id ?? null,
          photoCount: photos.length,
          publishedAt: t.iso,
          tags: JSON.stringify(tags),
          createdAt: t.iso,
          updatedAt: t.iso,
        },
      });
    }

    const productCount = perPerformer(def.products.length);
    for (let k = 0; k < productCount; k++) {
      const p = def.products[k]!;
      const t = at(2 + rnd() * Math.min(170, joinedDaysAgo - 10));
      const tags = [p.type, p.category.replace(/-/g, ' ')];
      performer.products.push({
        def: p,
        row: {
          id: newId(t.ms),
          performerId: user.id,
          status: 'active',
          name: p.name,
          slug: uniqueSlug(p.name),
          description: p.description,
          type: p.type,
          price: p.price,
          stock: p.type === 'physical' ? 10 + Math.round(rnd() * 90) : null,
          imageFileId: null,
          digitalFileId: null,
          publishedAt: t.iso,
          tags: JSON.stringify(tags),
          createdAt: t.iso,
          updatedAt: t.iso,
        },
      });
    }

    performer.row.videoCount = performer.videos.length;
    performer.row.galleryCount = performer.galleries.length;
    performer.row.photoCount = performer.galleries.reduce((n, g) => n + g.photos.length, 0);
    performer.row.productCount = performer.products.length;
    performers.push(performer);
  }

  const fan = makeUser({ email: 'fan@example.com', username: 'demofan', name: 'Sam Taylor', role: 'user', country: 'US', bio: 'Here for the yoga and the cooking.' }, 60);
  // The audience (./audience.ts): accounts made over the last months, who subscribe, watch, react and comment. The
  // demo fan above stays without subscriptions, so a newcomer logging in as them meets the paywall.
  const joined = seededRandom('demo-fans-joined');
  const demoFans = demoFanNames(demoFanCount(scale)).map((n) =>
    makeUser({ email: `${n.username}@example.com`, username: n.username, name: n.name, role: 'user', country: null }, 5 + joined() * 150),
  );

  const postRows: Array<Row<PostsTable>> = [];
  posts.forEach((p, i) => {
    const t = at(3 + i * 11 + rnd() * 5);
    const slug = uniqueSlug(p.title);
    postRows.push({
      id: newId(t.ms), authorId: admin.id, performerId: null, type: 'post', title: p.title, slug, excerpt: p.excerpt,
      content: p.paragraphs.map((x) => `<p>${escapeHtml(x)}</p>`).join('\n'), imageFileId: null, status: 'published',
      likeCount: 0, commentCount: 0, publishedAt: t.iso, createdAt: t.iso, updatedAt: t.iso,
    });
  });
  for (const p of pages) {
    const t = at(400);
    slugs.add(p.slug);
    postRows.push({
      id: newId(t.ms), authorId: admin.id, performerId: null, type: 'page', title: p.title, slug: p.slug, excerpt: null,
      content: p.paragraphs.map((x) => `<p>${escapeHtml(x)}</p>`).join('\n'), imageFileId: null, status: 'published',
      likeCount: 0, commentCount: 0, publishedAt: t.iso, createdAt: t.iso, updatedAt: t.iso,
    });
  }

  const performerPosts: PlannedPost[] = performerPostDefs.map((d) => {
    const performer = performers[d.performer % performers.length]!;
    const t = at(d.daysAgo);
    const id = newId(t.ms);
    return {
      performer,
      row: {
        id, authorId: performer.user.id, performerId: performer.user.id, type: 'post', title: d.title, slug: uniqueSlug(d.title), excerpt: d.excerpt,
        content: d.paragraphs.map((x) => `<p>${escapeHtml(x)}</p>`).join('\n'), imageFileId: null, status: 'published', access: d.access,
        price: d.access === 'sale' ? (d.price ?? 499) : 0, likeCount: 0, commentCount: 0, publishedAt: t.iso, createdAt: t.iso, updatedAt: t.iso,
      },
      media: Array.from({ length: d.pictures }, (_, k) => ({
        portrait: k % 3 === 1,
        row: {
          id: newId(t.ms), postId: id, position: k, kind: 'image' as const, fileId: '', displayFileId: null, previewFileId: null, thumbFileId: null,
          processingStatus: 'ready' as const, width: null, height: null, duration: null, createdAt: t.iso, updatedAt: t.iso,
        },
      })),
    };
  });

  const bannerPerformers = [0, 1, 4].map((n) => performers[n % performers.length]!);
  const banners = bannerPerformers.map((p, i) => {
    const t = at(30 - i);
    return {
      performer: p,
      row: {
        id: newId(t.ms),
        title: i === 0 ? `New every week with ${p.def.name}` : `Meet ${p.def.name}`,
        description: p.def.tagline,
        imageFileId: null,
        link: `/performers/${p.def.username}`,
        position: 'top',
        ordering: i,
        status: 'active',
        createdAt: t.iso,
        updatedAt: t.iso,
      } satisfies Row<BannersTable>,
    };
  });

  return { now, users, admin, fan, demoFans, demoPerformer: performers[0]!.user, performers, categories, posts: postRows, performerPosts, banners };
}

// ---------------------------------------------------------------------------------------------------------------
// Media.

class MediaWriter {
  readonly rows: Array<Row<FilesTable>> = [];
  private readonly keys: string[] = [];
  private readonly keyById = new Map<string, string>();
  constructor(private readonly storage: Storage) {}

  async put(
    body: Buffer,
    meta: {
      prefix: string;
      ext: string;
      kind: FilesTable['kind'];
      mime: string;
      ownerId: string | null;
      at: string;
      variant?: string;
      parentId?: string | null;
      width?: number | null;
      height?: number | null;
      duration?: number | null;
      originalName?: string | null;
    },
  ): Promise<string> {
    const id = newId();
    const storageKey = `${meta.prefix}/${id}.${meta.ext}`;
    this.keys.push(storageKey);
    this.keyById.set(id, storageKey);
    const { size } = await this.storage.put(storageKey, body);
    this.rows.push({
      id,
      ownerId: meta.ownerId,
      parentId: meta.parentId ?? null,
      variant: meta.variant ?? 'original',
      kind: meta.kind,
      storageKey,
      mime: meta.mime,
      size,
      width: meta.width ?? null,
      height: meta.height ?? null,
      duration: meta.duration ?? null,
      originalName: meta.originalName ?? null,
      status: 'ready',
      error: null,
      createdAt: meta.at,
      updatedAt: meta.at,
    });
    return id;
  }

  putImage(img: ImageResult, meta: { prefix: string; ownerId: string | null; at: string; variant?: string; parentId?: string | null; originalName?: string }) {
    return this.put(img.buffer, { ...meta, ext: img.ext, kind: 'image', mime: img.mime, width: img.width, height: img.height });
  }

  keyOf(fileId: string): string {
    const key = this.keyById.get(fileId);
    if (!key) throw new Error(`no file ${fileId}`);
    return key;
  }

  async removeAll(): Promise<void> {
    await Promise.all(this.keys.map((k) => this.storage.delete(k).catch(() => {})));
  }
}

interface Clip {
  video: Buffer;
  poster: Buffer;
  teaser: Buffer;
  duration: number;
  teaserDuration: number;
  width: number;
  height: number;
}

const clipSpecs: Array<{ pattern: TestPattern; hue?: number; color?: string; toneHz: number }> = [
  { pattern: 'testsrc2', toneHz: 440 },
  { pattern: 'smptebars', toneHz: 523 },
  { pattern: 'testsrc', toneHz: 330 },
  { pattern: 'mandelbrot', toneHz: 392 },
  { pattern: 'color', color: '#c2416b', toneHz: 587 },
  { pattern: 'testsrc2', hue: 140, toneHz: 660 },
  { pattern: 'rgbtestsrc', toneHz: 494 },
  { pattern: 'color', color: '#2f6f8f', toneHz: 349 },
];

async function makeClips(workDir: string): Promise<Clip[]> {
  return mapLimit(clipSpecs.slice(0, clipCount), 2, async (spec, i) => {
    const file = path.join(workDir, `clip-${i}.mp4`);
    // Long enough to have a teaser at all (server/media/teaser-rule.ts), which the demo shows on video pages.
    const info = await generateTestVideo(file, { seconds: 10 + (i % 3), width: 320, height: 180, fps: 24, ...spec });
    const poster = path.join(workDir, `clip-${i}.jpg`);
    await extractPoster(file, poster, 1.5);
    const teaserFile = path.join(workDir, `clip-${i}-teaser.mp4`);
    const limit = teaserLimit(info.duration);
    if (!info.duration || limit === null) throw new Error(`generated clip ${i} is too short for a teaser`);
    const teaser = await makeTeaser(file, teaserFile, limit, { start: 0.5 });
    if (!teaser.duration) throw new Error(`generated clip ${i} has no teaser duration`);
    return {
      video: await fsp.readFile(file),
      poster: await fsp.readFile(poster),
      teaser: await fsp.readFile(teaserFile),
      duration: info.duration,
      teaserDuration: teaser.duration,
      width: info.width ?? 320,
      height: info.height ?? 180,
    };
  });
}

async function generateMedia(plan: Plan, media: MediaWriter, workDir: string): Promise<void> {
  const clips = await makeClips(workDir);
  const jobs: Array<() => Promise<void>> = [];

  const people = [plan.admin, plan.fan, ...plan.performers.map((p) => p.user)];
  for (const user of people) {
    jobs.push(async () => {
      const at = user.createdAt;
      const avatar = await renderArt({ width: 256, height: 256, initials: initialsOf(user.name), seed: `${user.username}:avatar` });
      const avatarId = await media.putImage(avatar, { prefix: 'public/avatars', ownerId: user.id!, at });
      user.avatarPath = media.keyOf(avatarId);
      if (user.role === 'performer') {
        // Picture only: the pages write the name and tagline next to the cover (cropped into a card, baked-in text
        // was cut off and ran under the avatar).
        const cover = await renderArt({ width: 1200, height: 400, seed: `${user.username}:cover` });
        const coverId = await media.putImage(cover, { prefix: 'public/covers', ownerId: user.id!, at });
        user.coverPath = media.keyOf(coverId);
      }
    });
  }

  for (const perf of plan.performers) {
    const ownerId = perf.user.id!;
    for (const v of perf.videos) {
      jobs.push(async () => {
        const clip = clips[v.clip]!;
        const at = v.row.createdAt;
        const name = `${slugify(v.row.title)}.mp4`;
        const fileId = await media.put(clip.video, {
          prefix: 'private/videos', ext: 'mp4', kind: 'video', mime: 'video/mp4', ownerId, at, originalName: name,
          width: clip.width, height: clip.height, duration: clip.duration,
        });
        await media.put(clip.poster, {
          prefix: 'public/videos/posters', ext: 'jpg', kind: 'image', mime: 'image/jpeg', ownerId, at, variant: 'poster', parentId: fileId,
          width: clip.width, height: clip.height,
        });
        const thumb = await makeThumbnail(clip.poster, 640, 360, { caption: v.row.title });
        const thumbId = await media.putImage(thumb, { prefix: 'public/videos/thumbs', ownerId, at, variant: 'thumb', parentId: fileId });
        const teaserId = await media.put(clip.teaser, {
          prefix: 'public/videos/teasers', ext: 'mp4', kind: 'video', mime: 'video/mp4', ownerId, at, variant: 'teaser', parentId: fileId,
          width: clip.width, height: clip.height, duration: clip.teaserDuration,
        });
        v.row.fileId = fileId;
        v.row.thumbnailFileId = thumbId;
        v.row.teaserFileId = teaserId;
        v.row.duration = clip.duration;
      });
    }
    for (const g of perf.galleries) {
      g.photos.forEach((p, k) => {
        jobs.push(async () => {
          const at = p.row.createdAt;
          const [w, h] = p.portrait ? [960, 1280] : [1280, 960];
          const full = await renderArt({ width: w, height: h, title: g.row.title, subtitle: `${perf.def.name} · ${k + 1}/${g.photos.length}`, seed: `${p.row.id}` }, 'jpeg', 82);
          const fileId = await media.putImage(full, { prefix: 'private/photos', ownerId, at, originalName: `${slugify(g.row.title)}-${k + 1}.jpg` });
          const [tw, th] = p.portrait ? [300, 400] : [400, 300];
          const thumb = await makeThumbnail(full.buffer, tw, th, p.blurred ? { blur: 18 } : {});
          const thumbId = await media.putImage(thumb, { prefix: 'public/photos/thumbs', ownerId, at, variant: 'thumb', parentId: fileId });
          // As the pipeline does (server/media/photo-thumbs.ts): a blurred public thumbnail has a sharp private twin
          // for subscribers and buyers.
          if (p.blurred) {
            await media.putImage(await makeThumbnail(full.buffer, tw, th), { prefix: 'private/photos/thumbs', ownerId, at, variant: PRIVATE_THUMB_VARIANT, parentId: fileId });
          }
          p.row.fileId = fileId;
          p.row.thumbnailFileId = thumbId;
        });
      });
    }
    for (const pr of perf.products) {
      jobs.push(async () => {
        const at = pr.row.createdAt;
        const img = await renderArt({ width: 800, height: 800, title: pr.def.name, subtitle: perf.def.name, seed: `${pr.row.id}` });
        pr.row.imageFileId = await media.putImage(img, { prefix: 'public/products', ownerId, at });
        if (pr.def.type === 'digital') {
          const pdf = simplePdf(pr.def.name, [`by ${perf.def.name}`, '', pr.def.description, '', 'Thank you for your purchase!', 'This file was generated for the demo site.']);
          pr.row.digitalFileId = await media.put(pdf, {
            prefix: 'private/products', ext: 'pdf', kind: 'file', mime: 'application/pdf', ownerId, at, originalName: `${slugify(pr.def.name)}.pdf`,
          });
        }
      });
    }
  }

  for (const post of plan.posts) {
    if (post.type !== 'post') continue;
    jobs.push(async () => {
      const img = await renderArt({ width: 1200, height: 630, title: post.title, seed: post.slug });
      post.imageFileId = await media.putImage(img, { prefix: 'public/posts', ownerId: plan.admin.id!, at: post.createdAt });
    });
  }
  // A performer's post keeps its pictures as the pipeline does (post-media.process): the upload private, a public
  // preview (blurred while locked), a sharp private thumbnail when locked, and the picture in full (public only when free).
  for (const post of plan.performerPosts) {
    const locked = post.row.access !== 'free';
    const ownerId = post.performer.user.id!;
    post.media.forEach((m, k) => {
      jobs.push(async () => {
        const at = m.row.createdAt;
        const [w, h] = m.portrait ? [960, 1280] : [1280, 960];
        const full = await renderArt({ width: w, height: h, title: post.row.title, subtitle: `${post.performer.def.name} · ${k + 1}/${post.media.length}`, seed: `${m.row.id}` }, 'jpeg', 82);
        const fileId = await media.putImage(full, { prefix: 'private/posts/originals', ownerId, at, originalName: `${slugify(post.row.title)}-${k + 1}.jpg` });
        const preview = await makeThumbnail(full.buffer, 480, 480, { fit: 'inside', ...(locked ? { blur: 18 } : {}) });
        m.row.previewFileId = await media.putImage(preview, { prefix: 'public/posts/previews', ownerId, at, variant: 'preview', parentId: fileId });
        if (locked) {
          const thumb = await makeThumbnail(full.buffer, 480, 480, { fit: 'inside' });
          m.row.thumbFileId = await media.putImage(thumb, { prefix: 'private/posts/thumbs', ownerId, at, variant: 'thumb', parentId: fileId });
        }
        const display = await makeThumbnail(full.buffer, Math.max(w, h), Math.max(w, h), { fit: 'inside', quality: 85 });
        m.row.displayFileId = await media.putImage(display, { prefix: locked ? 'private/posts/displays' : 'public/posts/displays', ownerId, at, variant: 'display', parentId: fileId });
        m.row.fileId = fileId;
        m.row.width = w;
        m.row.height = h;
      });
    });
  }
  for (const b of plan.banners) {
    jobs.push(async () => {
      // Picture only: the banner's title and description are its caption, shown by the page as text (readable,
      // translatable, and not repeated twice over the picture).
      const img = await renderArt({ width: 1600, height: 500, seed: `${b.performer.def.username}:banner` });
      b.row.imageFileId = await media.putImage(img, { prefix: 'public/banners', ownerId: plan.admin.id!, at: b.row.createdAt });
    });
  }

  await mapLimit(jobs, Math.max(2, Math.min(6, os.availableParallelism?.() ?? 2) * 2), (job) => job());
}

// ---------------------------------------------------------------------------------------------------------------
// Rows.

/** What the audience may watch, react to and discuss: every video, gallery, product and post (not the pages). */
function audienceItems(plan: Plan): AudienceItem[] {
  const items: AudienceItem[] = [];
  for (const p of plan.performers) {
    for (const v of p.videos) items.push({ objectType: 'video', id: v.row.id, performerId: p.row.id, title: v.row.title, access: v.row.access ?? 'free', publishedAt: v.row.publishedAt! });
    for (const g of p.galleries) items.push({ objectType: 'gallery', id: g.row.id, performerId: p.row.id, title: g.row.title, access: g.row.access ?? 'free', publishedAt: g.row.publishedAt! });
    for (const pr of p.products) {
      items.push({ objectType: 'product', id: pr.row.id, performerId: p.row.id, title: pr.row.name, access: 'free', productType: pr.def.type, publishedAt: pr.row.publishedAt! });
    }
  }
  for (const post of plan.posts) {
    if (post.type === 'post') items.push({ objectType: 'post', id: post.id, performerId: null, title: post.title, access: 'free', publishedAt: post.publishedAt! });
  }
  for (const post of plan.performerPosts) {
    items.push({ objectType: 'post', id: post.row.id, performerId: post.performer.row.id, title: post.row.title, access: post.row.access ?? 'free', publishedAt: post.row.publishedAt! });
  }
  return items;
}

async function insertPlan(trx: Transaction<Database>, plan: Plan, files: Array<Row<FilesTable>>): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const insert = async <T extends keyof Database & string>(table: T, rows: Array<Insertable<Database[T]>>) => {
    counts[table] = (counts[table] ?? 0) + rows.length;
    for (let i = 0; i < rows.length; i += 200) {
      await trx.insertInto(table).values(rows.slice(i, i + 200) as never).execute();
    }
  };
  const contentCategories: Array<Row<ContentCategoriesTable>> = [];
  const contentTags: Array<Row<ContentTagsTable>> = [];
  const link = (group: CategoryGroup, slug: string, objectType: ObjectType, objectId: string) => {
    const category = plan.categories.get(`${group}:${slug}`);
    if (!category) throw new Error(`unknown ${group} category ${slug}`);
    contentCategories.push({ categoryId: category.id, objectType, objectId });
  };
  const tag = (tags: string[], objectType: ObjectType, objectId: string) => {
    for (const t of new Set(tags.map((x) => x.toLowerCase()))) contentTags.push({ tag: t, objectType, objectId });
  };

  await insert('users', plan.users);
  await insert('performers', plan.performers.map((p) => p.row));
  await insert('categories', [...plan.categories.values()]);
  await insert('files', files);

  const videos: Array<Row<VideosTable>> = [];
  const galleries: Array<Row<GalleriesTable>> = [];
  const photos: Array<Row<PhotosTable>> = [];
  const products: Array<Row<ProductsTable>> = [];
  for (const p of plan.performers) {
    for (const c of p.def.categories) link('performer', c, 'performer', p.row.id);
    tag(p.def.tags, 'performer', p.row.id);
    for (const v of p.videos) {
      videos.push(v.row);
      link('video', v.categorySlug, 'video', v.row.id);
      tag(v.tags, 'video', v.row.id);
    }
    for (const g of p.galleries) {
      galleries.push(g.row);
      photos.push(...g.photos.map((x) => x.row));
      link('gallery', g.categorySlug, 'gallery', g.row.id);
      tag(g.tags, 'gallery', g.row.id);
    }
    for (const pr of p.products) {
      products.push(pr.row);
      link('product', pr.def.category, 'product', pr.row.id);
      tag(JSON.parse(pr.row.tags ?? '[]') as string[], 'product', pr.row.id);
    }
  }
  await insert('videos', videos);
  await insert('galleries', galleries);
  await insert('photos', photos);
  await insert('products', products);
  await insert('contentCategories', contentCategories);
  await insert('contentTags', contentTags);
  await insert('posts', plan.posts);
  // Apart: a batch's rows must have the same columns (the site's posts leave access and price to their defaults).
  await insert('posts', plan.performerPosts.map((p) => p.row));
  await insert('postMedia', plan.performerPosts.flatMap((p) => p.media.map((m) => m.row)));
  await insert('banners', plan.banners.map((b) => b.row));

  const t = nowIso(new Date(plan.now));
  await insert('subscriptionPackages', [
    { id: newId(plan.now), name: 'Monthly membership', description: 'Full access for 30 days, renews monthly.', type: 'monthly', price: 999, durationDays: 30, ordering: 0, status: 'active', createdAt: t, updatedAt: t },
    { id: newId(plan.now), name: 'Yearly membership', description: 'Twelve months for the price of ten.', type: 'yearly', price: 9999, durationDays: 365, ordering: 1, status: 'active', createdAt: t, updatedAt: t },
  ]);
  await insert('coupons', [
    {
      id: newId(plan.now), name: 'Welcome 10% off', code: 'WELCOME10', valueBps: 1000, maxUses: 100, usedCount: 0, status: 'active',
      expiresAt: nowIso(new Date(plan.now + 365 * DAY)), createdAt: t, updatedAt: t,
    },
  ]);
  return counts;
}

// ---------------------------------------------------------------------------------------------------------------
// Small helpers.

function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
}

function escapeHtml(s: string): string {
  return s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);
}

/**
 * Runs fn over items with at most `limit` in flight; results keep the input order. On a failure no new item
 * starts, and the first error is thrown only once the running ones have settled (so cleanup sees all their files).
 */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { err: unknown } | undefined;
  const worker = async () => {
    while (!failure && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i]!, i);
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure) throw failure.err;
  return results;
}

/** A one-page PDF with a title and lines of text (Helvetica, ASCII only), valid enough for any viewer. */
function simplePdf(title: string, lines: string[]): Buffer {
  const esc = (s: string) => s.normalize('NFKD').replace(/[^\x20-\x7e]/g, '').replace(/([\\()])/g, '\\$1');
  let stream = `BT /F1 22 Tf 72 760 Td (${esc(title)}) Tj ET\n`;
  lines.forEach((line, i) => {
    stream += `BT /F1 12 Tf 72 ${720 - i * 18} Td (${esc(line)}) Tj ET\n`;
  });
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}endstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
