/// <reference types="astro/client" />

declare namespace App {
  interface Locals {
    ctx: import('../server/context.js').AppContext;
    clientIp: string;
    settings: import('../common/schemas/site.js').PublicSettings;
    runtime: import('../common/runtime-config.js').RuntimeConfig;
    country: string | null;
    /** The signed-in user of this request, from the `token` cookie. */
    user: import('../server/auth/auth.service.js').SessionUser | null;
    /** The request carried a session cookie that no longer opens a session (expired, revoked): it was cleared. */
    sessionEnded?: boolean;
    /**
     * A signed-in visitor on a member-shell page (server/routes.ts): `user` is null so the page renders as for
     * every member alike, and the header asks who is signed in (GET /users/me/header).
     */
    memberShell?: boolean;
    /**
     * On a member-shell page, the visitor after all, for one use only: `leaveMemberShell` (src/server/catalogue-page.ts)
     * when the content a guest would see is missing (a performer's own unapproved page). Nothing else reads it.
     */
    shellUser?: import('../server/auth/auth.service.js').SessionUser;
    /** This page shows the age confirmation over its content (server/http/age-gate.ts). */
    ageGate?: boolean;
  }
}
