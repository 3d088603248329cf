import type {
  ChangePasswordRequest, CurrentUser, LoginRequest, LoginResponse, MessageResponse, RegisterRequest, RegisterResponse,
} from '../../../common/schemas/auth.js';
import type { MemberHeader, MemberHeaderQuery } from '../../../common/schemas/member-shell.js';
import type { ContactRequest, ContactSent, CountryItem } from '../../../common/schemas/site.js';
import type { UpdateProfileRequest } from '../../../common/schemas/users.js';
import type { CreateTakedownRequest, TakedownReceipt } from '../../../common/schemas/takedowns.js';
import type { DataExport, DataExportList, DeleteAccountRequest } from '../../../common/schemas/privacy.js';
import { apiFetch, multipart } from './transport.js';

/** Sessions and accounts: sign-up, login, e-mail verification, passwords, the signed-in user's profile; the contact form and the country list of the account forms. */
export const auth = {
  login: (body: LoginRequest) => apiFetch<LoginResponse>('/auth/login', { method: 'POST', body: { ...body } }),
  logout: () => apiFetch<void>('/auth/logout', { method: 'POST' }),
  register: (body: RegisterRequest) => apiFetch<RegisterResponse>('/auth/users/register', { method: 'POST', body: { ...body } }),
  verifyEmail: (token: string) => apiFetch<MessageResponse>('/auth/email-verification', { method: 'POST', body: { token } }),
  resendVerification: (email: string) => apiFetch<MessageResponse>('/auth/email-verification/resend', { method: 'POST', body: { email } }),
  forgotPassword: (email: string) => apiFetch<MessageResponse>('/auth/users/forgot', { method: 'POST', body: { email } }),
  resetPassword: (token: string, password: string) =>
    apiFetch<MessageResponse>('/auth/users/reset-password', { method: 'POST', body: { token, password } }),
  changePassword: (body: ChangePasswordRequest) => apiFetch<MessageResponse>('/auth/users/me/password', { method: 'PUT', body: { ...body } }),
  me: () => apiFetch<CurrentUser>('/users/me'),
  /**
   * Who is signed in and their unread counts, for the header of a page shown alike to every member, and with
   * `performer` or `video` their state on that page; 401 for a guest.
   */
  header: (q: MemberHeaderQuery = {}) => apiFetch<MemberHeader>('/users/me/header', { query: q, guestOn401: true }),
  updateProfile: (body: UpdateProfileRequest) => apiFetch<CurrentUser>('/users', { method: 'PUT', body: { ...body } }),
  uploadAvatar: (file: Blob) => apiFetch<CurrentUser>('/users/avatar/upload', { method: 'POST', body: multipart(file) }),
  uploadCover: (file: Blob) => apiFetch<CurrentUser>('/users/cover/upload', { method: 'POST', body: multipart(file) }),
  contact: (body: ContactRequest) => apiFetch<ContactSent>('/contact', { method: 'POST', body: { ...body } }),
  countries: () => apiFetch<CountryItem[]>('/countries/list'),
  takedown: (body: CreateTakedownRequest) => apiFetch<TakedownReceipt>('/takedowns', { method: 'POST', body: { ...body } }),
  dataExports: () => apiFetch<DataExportList>('/users/me/data-exports'),
  requestDataExport: () => apiFetch<DataExport>('/users/me/data-exports', { method: 'POST' }),
  deleteAccount: (body: DeleteAccountRequest) => apiFetch<MessageResponse>('/users/me/delete', { method: 'POST', body: { ...body } }),
};
