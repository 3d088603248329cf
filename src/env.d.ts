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
    /** This page shows the age confirmation over its content (server/http/age-gate.ts). */
    ageGate?: boolean;
  }
}
