import type { SettingsService } from '../settings/settings.service.js';
import { badRequest } from '../http/errors.js';

/** reCAPTCHA-compatible verification. Without a secret, captcha is disabled and forms don't require it. */
export class CaptchaService {
  constructor(
    private readonly settings: SettingsService,
    private readonly verifyUrl: string,
  ) {}

  async enabled(): Promise<boolean> {
    return Boolean(await this.settings.get('captchaSecret'));
  }

  async verify(token: string, ip?: string): Promise<{ success: boolean; enabled: boolean }> {
    const secret = await this.settings.get('captchaSecret');
    if (!secret) return { success: true, enabled: false };
    const body = new URLSearchParams({ secret, response: token, ...(ip ? { remoteip: ip } : {}) });
    try {
      const res = await fetch(this.verifyUrl, { method: 'POST', body, signal: AbortSignal.timeout(5000) });
      const json = (await res.json()) as { success?: boolean };
      return { success: json.success === true, enabled: true };
    } catch {
      return { success: false, enabled: true };
    }
  }

  /** For forms: throws a 400 unless captcha is disabled or the token verifies. */
  async require(token: string | undefined, ip?: string): Promise<void> {
    if (!(await this.enabled())) return;
    if (!token) throw badRequest('Please complete the captcha');
    const { success } = await this.verify(token, ip);
    if (!success) throw badRequest('Captcha verification failed, please try again');
  }
}
