/**
 * The `files.variant` of a stamped copy: a child of the file served in full (a video's or photo's original upload, a
 * post's video, a post picture's display file). Where one is ready, it is served in that file's place.
 */
export const MARKED_VARIANT = 'marked';
