import { call } from './client.js';

/**
 * The video player's one call: a signed video address expires (or the session's access changed) while the page stays
 * open, so on a playback error the player asks for the video again. `null`: this visitor may no longer watch it.
 * `source`: the player plays a video's own file, or the video of a performer's post (the post is asked for).
 */
export async function freshVideoUrl(id: string, source: 'video' | 'post' = 'video'): Promise<string | null> {
  if (source === 'post') {
    const post = await call(({ catalogue }) => catalogue.post(id));
    return post.media.find((m) => m.kind === 'video')?.video?.url ?? null;
  }
  const fresh = await call(({ catalogue }) => catalogue.video(id));
  return fresh.video?.url ?? null;
}
