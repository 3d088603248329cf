import { useRef, useState } from 'react';
import type { SignedMedia } from '../../common/schemas/catalogue.js';
import { freshVideoUrl, reportPlay } from '../lib/stores/player.js';

export interface VideoPlayerProps {
  /** The video's id, or the post's when `source` is 'post'. */
  videoId: string;
  /** Whose file this is: a video's (default) or the video of a performer's post. */
  source?: 'video' | 'post';
  media: SignedMedia;
  poster: string | null;
  title: string;
}

/**
 * The full video (progressive, with HTTP range requests). The signed URL expires (10 min by default): when the
 * player errors, e.g. a 403 on the next range request, it fetches the video again for a fresh URL and resumes
 * at the same time. Gives up after a few attempts in a row.
 */
export default function VideoPlayer({ videoId, source = 'video', media, poster, title }: VideoPlayerProps) {
  const ref = useRef<HTMLVideoElement>(null);
  const [src, setSrc] = useState(media.url);
  const [error, setError] = useState<string | null>(null);
  const retries = useRef(0);
  const reported = useRef(false);

  const refresh = async () => {
    const el = ref.current;
    if (!el || retries.current >= 3) {
      setError('The video could not be played. Reload the page to try again.');
      return;
    }
    retries.current += 1;
    const at = el.currentTime;
    const wasPlaying = !el.paused;
    try {
      const url = await freshVideoUrl(videoId, source);
      if (!url) {
        setError('This video is no longer available to you.');
        return;
      }
      setSrc(url);
      const resume = () => {
        el.currentTime = at;
        if (wasPlaying) void el.play().catch(() => undefined);
        el.removeEventListener('loadedmetadata', resume);
      };
      el.addEventListener('loadedmetadata', resume);
    } catch {
      setError('The video could not be played. Reload the page to try again.');
    }
  };

  return (
    <div className="player">
      <video
        ref={ref}
        data-testid="video-player"
        controls
        preload="metadata"
        playsInline
        poster={poster ?? undefined}
        src={src}
        aria-label={title}
        onError={() => void refresh()}
        onPlaying={() => (retries.current = 0)}
        onPlay={() => {
          // A view is a play of the full video (a post's video has no view count); once per page, the server dedupes the rest.
          if (source !== 'video' || reported.current) return;
          reported.current = true;
          void reportPlay(videoId);
        }}
      />
      {error ? <p className="form__error" role="alert">{error}</p> : null}
    </div>
  );
}
