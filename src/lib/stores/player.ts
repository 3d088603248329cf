import { call } from './client.js';

/**
 * The video player's one call: a signed video address expires (or the session's access changed) while the page stays
 * open, so on a playback error the player asks for the video again. `null`: this visitor may no longer watch it.
 */
export async function freshVideoUrl(videoId: string): Promise<string | null> {
  const fresh = await call(({ catalogue }) => catalogue.video(videoId));
  return fresh.video?.url ?? null;
}
