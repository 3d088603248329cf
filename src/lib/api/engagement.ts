import type { EngagementObjectType, ReactionAction } from '../../../common/enums.js';
import type {
  CommentItem, CommentSearchResult, CreateCommentRequest, CreatedComment, DeleteCommentResponse, ReactedGallery, ReactedVideo, ReactionItem,
  ReactionRequest, ReactionResult,
} from '../../../common/schemas/engagement.js';
import type { ListResult, UnreadCount } from '../../../common/schemas/http.js';
import type { FeedItem, FollowedPerformer, FollowState } from '../../../common/schemas/feed.js';
import type { BlockedFan, BlockState, Conversation, MassMessage, MessageItem, MessageSettings, ReadState } from '../../../common/schemas/messages.js';
import type { EmailPreferences, MarkAllReadBody, NotificationItem, UpdateEmailPreferencesBody } from '../../../common/schemas/notifications.js';
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
  conversations: (q: { limit?: number; cursor?: string | null } = {}) =>
    apiFetch<ListResult<Conversation>>('/messages/conversations', { query: { limit: q.limit, cursor: q.cursor ?? undefined } }),
  startConversation: (userId: string) => apiFetch<Conversation>('/messages/conversations', { method: 'POST', body: { userId } }),
  messages: (conversationId: string, q: { limit?: number; cursor?: string | null } = {}) =>
    apiFetch<ListResult<MessageItem>>(`/messages/conversations/${encodeURIComponent(conversationId)}/messages`, { query: { limit: q.limit, cursor: q.cursor ?? undefined } }),
  /** Text and up to four pictures or videos, as multipart; a performer's price (minor units) locks the files. */
  sendMessage: (conversationId: string, text: string, files: readonly Blob[] = [], price = 0) => {
    const form = new FormData();
    form.append('text', text);
    if (price > 0) form.append('price', String(price));
    for (const f of files) form.append('file', f);
    return apiFetch<MessageItem>(`/messages/conversations/${encodeURIComponent(conversationId)}/messages`, { method: 'POST', body: form });
  },
  /** One message again (a paid one once bought: its files then signed for the caller). */
  message: (id: string) => apiFetch<MessageItem>(`/messages/${encodeURIComponent(id)}`),
  markRead: (conversationId: string) => apiFetch<ReadState>(`/messages/conversations/${encodeURIComponent(conversationId)}/read`, { method: 'POST' }),
  unreadMessages: () => apiFetch<UnreadCount>('/messages/unread'),
  messageSettings: (messagePolicy: MessageSettings['messagePolicy']) => apiFetch<MessageSettings>('/performer/message-settings', { method: 'PUT', body: { messagePolicy } }),
  block: (userId: string) => apiFetch<BlockState>('/performer/blocks', { method: 'POST', body: { userId } }),
  unblock: (userId: string) => apiFetch<BlockState>(`/performer/blocks/${encodeURIComponent(userId)}`, { method: 'DELETE' }),
  blocked: () => apiFetch<{ items: BlockedFan[] }>('/performer/blocks'),
  massMessages: () => apiFetch<{ items: MassMessage[] }>('/performer/mass-messages'),
  sendMassMessage: (text: string, audience: MassMessage['audience'], files: readonly Blob[] = [], price = 0) => {
    const form = new FormData();
    form.append('text', text);
    form.append('audience', audience);
    if (price > 0) form.append('price', String(price));
    for (const f of files) form.append('file', f);
    return apiFetch<MassMessage>('/performer/mass-messages', { method: 'POST', body: form });
  },
  report: (body: CreateReportRequest) => apiFetch<Report>('/reports', { method: 'POST', body: { ...body } }),
  following: (q: { limit?: number; cursor?: string | null } = {}) => apiFetch<ListResult<FollowedPerformer>>('/following', { query: { limit: q.limit, cursor: q.cursor ?? undefined } }),
  notifications: (q: { limit?: number; cursor?: string | null } = {}) =>
    apiFetch<ListResult<NotificationItem>>('/notifications', { query: { limit: q.limit, cursor: q.cursor ?? undefined } }),
  unreadNotifications: () => apiFetch<UnreadCount>('/notifications/unread-count'),
  readNotification: (id: string) => apiFetch<NotificationItem>(`/notifications/${encodeURIComponent(id)}/read`, { method: 'POST' }),
  readAllNotifications: (body: MarkAllReadBody) => apiFetch<{ marked: number; count: number }>('/notifications/read-all', { method: 'POST', body: { ...body } }),
  emailPreferences: () => apiFetch<EmailPreferences>('/notifications/preferences'),
  updateEmailPreferences: (body: UpdateEmailPreferencesBody) => apiFetch<EmailPreferences>('/notifications/preferences', { method: 'PUT', body: { ...body } }),
  unsubscribe: (token: string) => apiFetch<{ type: string; email: false }>('/notifications/unsubscribe', { method: 'POST', query: { token } }),
};
