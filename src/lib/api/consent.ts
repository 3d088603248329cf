import type { CoPerformerObjectType } from '../../../common/enums.js';
import type { CoPerformerList, CoPerformerRequest } from '../../../common/schemas/consent.js';
import { apiFetch } from './transport.js';

/*
 * Co-performers (server/consent/): the studio's "People in this" section of an item's editor and the "Co-performer
 * requests" page. Loaded on studio pages only. An outside person's files go through upload.ts.
 */

const itemPath = (type: CoPerformerObjectType, id: string) => `/performer/co-performers/${type}/${encodeURIComponent(id)}`;

export const consentApi = {
  itemPath,
  list: (type: CoPerformerObjectType, id: string) => apiFetch<CoPerformerList>(itemPath(type, id)),
  nameSitePerformer: (type: CoPerformerObjectType, id: string, username: string) => apiFetch<CoPerformerList>(itemPath(type, id), { method: 'POST', body: { username } }),
  remove: (recordId: string) => apiFetch<CoPerformerList>(`/performer/co-performers/${encodeURIComponent(recordId)}`, { method: 'DELETE' }),
  requests: () => apiFetch<{ items: CoPerformerRequest[] }>('/performer/co-performer-requests'),
  answer: (recordId: string, action: 'confirm' | 'decline') =>
    apiFetch<{ items: CoPerformerRequest[] }>(`/performer/co-performer-requests/${encodeURIComponent(recordId)}/${action}`, { method: 'POST' }),
};
