/**
 * The clients the stores load with their first request (src/lib/stores/client.ts), one per area; the studio's
 * (studio.ts) and the console's (admin.ts) load apart, on their own pages only. Guests who only read never load this.
 */
export { auth } from './auth.js';
export { catalogue } from './catalogue.js';
export { engagement } from './engagement.js';
export { money } from './money.js';
