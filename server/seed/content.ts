import type { Access } from '../db/schema.js';

/**
 * The demo site's words: its categories, its twelve performers (name, bio, tagline, tags and the titles of their
 * videos, galleries and products), the site's posts and pages, the performers' own posts, and what the demo fans are
 * called and write. Data only: ./plan.ts turns it into rows.
 */

export type CategoryDef = { slug: string; name: string };
export const categoryDefs: Record<'performer' | 'video' | 'gallery' | 'product', CategoryDef[]> = {
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

export interface ProductDef { name: string; type: 'physical' | 'digital'; category: string; price: number; description: string }
export interface PerformerDef {
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

export const performerDefs: PerformerDef[] = [
  {
    // Search demo: "yoga" meets Mia in her bio, tags and category, and her videos in a title, tags and descriptions
    // (the tagline); Elena and Kai are found by their "Fitness & Yoga" category alone.
    name: 'Mia Rivers', username: 'miarivers', gender: 'female', country: 'US', tagline: 'Yoga, strength and slow mornings',
    bio: 'Certified yoga teacher from Santa Cruz. New flows every Monday, strength sessions on Thursdays and honest talk about recovery.',
    categories: ['fitness'], tags: ['yoga', 'stretching', 'mobility', 'strength'],
    videos: [
      ['Morning yoga flow: 20-minute full-body stretch', 'workouts'], ['Hip openers for desk workers', 'tutorials'],
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

export const sitePosts: Array<{ title: string; excerpt: string; paragraphs: string[] }> = [
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
    excerpt: 'Monthly, yearly or a bundle of months, cancel any time: here is what you get.',
    paragraphs: [
      'A subscription opens every video and gallery a creator publishes for subscribers, for as long as it runs.',
      'Yearly plans and 3, 6 or 12-month bundles, when a creator offers them, cost less per month. You can cancel at any time and keep access until the end of the period you paid for.',
      'Some creators offer new subscribers a free trial or a promotion on the first period. A free trial is once per creator; after it, the subscription renews at the monthly price shown on the button unless you cancel before the trial ends.',
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
      'Your subscriptions page shows when each one renews and for how much. We email you a receipt for every payment, and a reminder a few days before a yearly plan renews.',
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

export const sitePages: Array<{ slug: string; title: string; paragraphs: string[] }> = [
  {
    slug: 'terms',
    title: 'Terms of service',
    paragraphs: [
      'By creating an account you agree to these terms. You must be of legal age in your country to use the site.',
      'Subscriptions renew until cancelled, at the price shown when you subscribed: a free trial or a promotion lowers the first period only. You can cancel at any time and keep access until the end of the period you paid for. We email a receipt for every payment, and a reminder a few days before a yearly subscription renews.',
      'Purchases of single videos and digital products give you personal, non-transferable access.',
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
export const performerPostDefs: Array<{ performer: number; title: string; excerpt: string; paragraphs: string[]; access: Access; price?: number; pictures: number; daysAgo: number }> = [
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

// -- The audience (./audience.ts): the demo fans' names and what they write. ------------------------------------------

export const firstNames = [
  'Ellie', 'Marcus', 'Priya', 'Tom', 'Hana', 'Diego', 'Grace', 'Omar', 'Lena', 'Jonas', 'Aisha', 'Ben', 'Clara', 'Yuki', 'Mateo', 'Isla',
  'Ravi', 'Freya', 'Noah', 'Amara', 'Felix', 'Sara', 'Theo', 'Maya', 'Liam', 'Nora', 'Ivan', 'Zara', 'Oscar', 'Chloé', 'Kofi', 'Ines',
];
export const lastNames = ['Walsh', 'Okoye', 'Patel', 'Berg', 'Sato', 'Ruiz', 'Kim', 'Haddad', 'Novak', 'Fischer', 'Mensah', 'Costa', 'Lund', 'Moreau', 'Tan', 'Byrne'];

export const commentTexts = [
  'This was exactly what I needed today, thank you!',
  'Loved this one. The ending made me smile.',
  'Could you do a longer version of this?',
  'Watched it twice already. So good.',
  'The light in this is beautiful.',
  'I tried this at home and it actually worked!',
  'Saving this for the weekend.',
  'How long did this take you? It looks amazing.',
  'My favourite so far, honestly.',
  'Thanks for sharing the behind-the-scenes bits, they make it.',
  'Can you tell us more about how you got started?',
  'This deserves way more attention.',
  'I showed this to my sister and now she is hooked too.',
  'The details here are incredible.',
  'More of these please!',
  'Been following for a while, this is your best work yet.',
  'Great pace, easy to follow.',
  'Any tips for a complete beginner?',
];
export const profileTexts = ['So glad I found your page!', 'Your posts always make my week better.', 'Keep doing what you do.', 'Subscribed after the first video, no regrets.'];

/** What demo fans write with a tip. */
export const tipNotes = [
  'Thank you for this!',
  'Made my day',
  'Coffee is on me',
  'Keep them coming!',
  'Loved the last one',
  'For the next shoot',
];

/** The demo's direct messages: who writes each line of a short conversation between a fan and a performer (the first is the demo fan's, who has no subscription). */
export const conversationScripts: ReadonlyArray<ReadonlyArray<readonly ['fan' | 'performer', string]>> = [
  [
    ['fan', 'Quick question: is the digital download in the store the same as the video series?'],
    ['performer', 'It has the notes and timestamps, the videos stay here. Both together work best.'],
  ],
  [
    ['fan', 'Hi! I just subscribed, loving the tutorials so far.'],
    ['performer', 'Welcome, and thank you! Anything you would like to see next?'],
    ['fan', 'A longer beginner session would be amazing.'],
    ['performer', 'Noted. Filming one this week, you will see it in your feed first.'],
    ['fan', 'Perfect, cannot wait!'],
  ],
  [
    ['performer', 'Thank you for all the lovely comments this month!'],
    ['fan', 'You earned it. The last video was my favourite.'],
    ['performer', 'That makes my day. More like it coming soon.'],
  ],
];
