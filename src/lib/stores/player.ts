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

/**
 * The first play of a video on a page counts as a view (the server decides whether it does: once per viewer and hour,
 * never the performer's own plays). Best effort: a failed report never disturbs playback.
 */
export async function reportPlay(id: string): Promise<void> {
  await call(({ catalogue }) => catalogue.videoPlayed(id)).catch(() => undefined);
}
