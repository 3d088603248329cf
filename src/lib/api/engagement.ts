import type { EngagementObjectType, ReactionAction } from '../../../common/enums.js';
import type {
  CommentItem, CommentSearchResult, CreateCommentRequest, CreatedComment, DeleteCommentResponse, ReactedGallery, ReactedVideo, ReactionItem,
  ReactionRequest, ReactionResult,
} from '../../../common/schemas/engagement.js';
import type { ListResult } from '../../../common/schemas/http.js';
import type { FeedItem, FollowedPerformer, FollowState } from '../../../common/schemas/feed.js';
import type { CreateReportRequest, Report } from '../../../common/schemas/reports.js';
import { apiFetch } from './transport.js';

type Page = { limit?: number; offset?: number };
type Collected = Extract<ReactionAction, 'favourite' | 'watch_later'>;

/** Engagement: comments, reactions, follows and the feed, reports. */
export const engagement = {
  searchComments: (q: { objectType: EngagementObjectType; objectId: string; cursor?: string | null } & Page) =>
    apiFetch<CommentSearchResult>('/comments/search', { query: { ...q } }),
  createComment: (body: CreateCommentRequest) => apiFetch<CreatedComment>('/comments', { method: 'POST', body: { ...body } }),
  /** `PUT /comments/{id}` as multipart: new text and/or one image (`removeImage` drops the current one). */
  editComment: (id: string, changes: { content?: string; image?: Blob; removeImage?: boolean }) => {
    const form = new FormData();
    if (changes.content !== undefined) form.append('content', changes.content);
    if (changes.removeImage) form.append('removeImage', 'true');
    if (changes.image) form.append('image', changes.image);
    return apiFetch<CommentItem>(`/comments/${encodeURIComponent(id)}`, { method: 'PUT', body: form });
  },
  deleteComment: (id: string) => apiFetch<DeleteCommentResponse>(`/comments/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  react: (body: ReactionRequest) => apiFetch<ReactionResult>('/reactions', { method: 'POST', body: { ...body } }),
  unreact: (body: ReactionRequest) => apiFetch<ReactionResult>('/reactions', { method: 'DELETE', body: { ...body } }),
  searchReactions: (q: { objectType?: EngagementObjectType; action?: ReactionAction; objectIds?: string[] } & Page) =>
    apiFetch<ListResult<ReactionItem>>('/reactions/search', { query: { ...q, objectIds: q.objectIds?.join(',') } }),
  reactedVideos: (action: Collected, page: Page = {}) => apiFetch<ListResult<ReactedVideo>>('/reactions/videos', { query: { action, ...page } }),
  reactedGalleries: (action: Collected, page: Page = {}) => apiFetch<ListResult<ReactedGallery>>('/reactions/galleries', { query: { action, ...page } }),
  follow: (performerId: string) => apiFetch<FollowState>(`/performers/${encodeURIComponent(performerId)}/follow`, { method: 'POST' }),
  unfollow: (performerId: string) => apiFetch<FollowState>(`/performers/${encodeURIComponent(performerId)}/follow`, { method: 'DELETE' }),
  feed: (q: { limit?: number; cursor?: string | null } = {}) => apiFetch<ListResult<FeedItem>>('/feed', { query: { limit: q.limit, cursor: q.cursor ?? undefined } }),
  report: (body: CreateReportRequest) => apiFetch<Report>('/reports', { method: 'POST', body: { ...body } }),
  following: (q: { limit?: number; cursor?: string | null } = {}) => apiFetch<ListResult<FollowedPerformer>>('/following', { query: { limit: q.limit, cursor: q.cursor ?? undefined } }),
};
