/**
 * How long a public teaser may be. Teasers are public files (anyone may fetch them, they are cached a day), so
 * a teaser as long as the video would hand out a paid video for free. The rule holds whatever the settings say
 * (VIDEO_TEASER_SECONDS, VIDEO_TEASER_MAX_SECONDS only shorten it) and whatever clip the performer supplied:
 *
 * - a video shorter than TEASER_MIN_VIDEO_SECONDS gets no teaser at all (a fifth of it would be a second or two,
 *   and a short clip is mostly its best moment);
 * - otherwise at most TEASER_MAX_SECONDS and at most a fifth of the video.
 */
export const TEASER_MAX_SECONDS = 8;
export const TEASER_MIN_VIDEO_SECONDS = 10;
export const TEASER_MAX_SHARE = 1 / 5;

/** The longest teaser allowed for a video of `videoSeconds`, or null when it may have none. */
export function teaserLimit(videoSeconds: number | null | undefined): number | null {
  if (!videoSeconds || !Number.isFinite(videoSeconds) || videoSeconds < TEASER_MIN_VIDEO_SECONDS) return null;
  // Whole milliseconds, rounded down, so the cut ffmpeg is asked for never exceeds the limit by a rounding error.
  return Math.floor(Math.min(TEASER_MAX_SECONDS, videoSeconds * TEASER_MAX_SHARE) * 1000) / 1000;
}
