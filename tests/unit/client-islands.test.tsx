// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { DEFAULT_AVATAR } from '../../common/avatar.js';
import { setNavigator } from '../../src/lib/navigation.js';
import { resetAll } from '../../src/lib/stores/reset.js';
import { loggedIn, loginStatus } from '../../src/lib/stores/auth.js';
import { currentUser } from '../../src/lib/stores/user.js';
import { toast, toasts, TOAST_STORAGE_KEY, TOAST_TIMEOUT_MS } from '../../src/lib/stores/toast.js';
import { BACK_TO_TOP_DURATION_MS, easeInOutCubic, shouldShowBackToTop } from '../../src/lib/scroll.js';
import BackToTop from '../../src/islands/BackToTop.js';
import LoginForm from '../../src/islands/LoginForm.js';
import Toaster from '../../src/islands/Toaster.js';
import UserMenu from '../../src/islands/UserMenu.js';
import CartLink, { cartLabel } from '../../src/islands/CartLink.js';
import { addToCart, clearCart } from '../../src/lib/stores/cart.js';
import VerifyEmail from '../../src/islands/VerifyEmail.js';
import ContactForm, { CONTACT_SENT } from '../../src/islands/ContactForm.js';
import ProfileForm from '../../src/islands/ProfileForm.js';
import PasswordForm from '../../src/islands/PasswordForm.js';
import AvatarUpload from '../../src/islands/AvatarUpload.js';
import RegisterForm, { ADULT_REQUIRED, TERMS_REQUIRED } from '../../src/islands/RegisterForm.js';
import ResetPasswordForm from '../../src/islands/ResetPasswordForm.js';
import RouteProgress, { isPageNavigation } from '../../src/islands/RouteProgress.js';
import { reply, sampleUser, setPageJson, stubFetch } from './client-helpers.js';

const navigate = vi.fn();

/** A controllable requestAnimationFrame: `frame(t)` runs the queued callbacks with timestamp t. */
function stubAnimationFrames() {
  let queue: Array<[number, FrameRequestCallback]> = [];
  let next = 1;
  vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => {
    queue.push([next, cb]);
    return next++;
  });
  vi.stubGlobal('cancelAnimationFrame', (id: number) => {
    queue = queue.filter(([i]) => i !== id);
  });
  return {
    frame(t: number) {
      const run = queue;
      queue = [];
      for (const [, cb] of run) cb(t);
    },
    get pending() {
      return queue.length;
    },
  };
}

function setScrollY(y: number) {
  Object.defineProperty(window, 'scrollY', { configurable: true, writable: true, value: y });
}

beforeEach(() => {
  navigate.mockReset();
  setNavigator(navigate);
  localStorage.clear();
  sessionStorage.clear();
  window.history.replaceState(null, '', '/');
  resetAll();
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
  setNavigator();
});

describe('BackToTop', () => {
  it('threshold and easing helpers', () => {
    expect(shouldShowBackToTop(0)).toBe(false);
    expect(shouldShowBackToTop(400)).toBe(false);
    expect(shouldShowBackToTop(401)).toBe(true);
    expect(easeInOutCubic(0)).toBe(0);
    expect(easeInOutCubic(0.5)).toBe(0.5);
    expect(easeInOutCubic(1)).toBe(1);
  });

  it('appears only after 400 px of scroll and scrolls to the top in 450 ms', () => {
    const raf = stubAnimationFrames();
    const scrollTo = vi.fn((_x: number, y: number) => setScrollY(y));
    vi.stubGlobal('scrollTo', scrollTo);
    setScrollY(0);
    render(<BackToTop />);
    expect(screen.queryByRole('button', { name: 'Back to top' })).toBeNull();

    const scroll = (y: number) =>
      act(() => {
        setScrollY(y);
        window.dispatchEvent(new Event('scroll'));
        raf.frame(0);
      });
    scroll(400);
    expect(screen.queryByRole('button', { name: 'Back to top' })).toBeNull();
    scroll(800);
    const button = screen.getByRole('button', { name: 'Back to top' });
    expect(button.className).toBe('back-to-top');

    fireEvent.click(button);
    raf.frame(1000); // first frame fixes the start time
    expect(scrollTo).toHaveBeenLastCalledWith(0, 800);
    raf.frame(1000 + BACK_TO_TOP_DURATION_MS / 2);
    expect(scrollTo).toHaveBeenLastCalledWith(0, 400);
    raf.frame(1000 + BACK_TO_TOP_DURATION_MS * 0.9);
    expect(window.scrollY).toBeGreaterThan(0);
    expect(window.scrollY).toBeLessThan(10);
    raf.frame(1000 + BACK_TO_TOP_DURATION_MS);
    expect(scrollTo).toHaveBeenLastCalledWith(0, 0);
    expect(raf.pending).toBe(0);
  });
});

describe('LoginForm', () => {
  it('renders an accessible form', () => {
    render(<LoginForm />);
    expect(screen.getByTestId('login-form').tagName).toBe('FORM');
    expect(screen.getByLabelText('Email or username')).toHaveProperty('required', true);
    expect(screen.getByLabelText('Password')).toHaveProperty('type', 'password');
    expect(screen.getByLabelText('Keep me logged in')).toHaveProperty('checked', true);
    expect(screen.getByRole('button', { name: 'Log in' })).toHaveProperty('disabled', false);
    expect(screen.getByRole('link', { name: 'Forgot your password?' }).getAttribute('href')).toBe('/auth/forgot-password');
  });

  it('submits the credentials, disables the button while requesting, then goes to /home', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { calls } = stubFetch({
      'POST /api/auth/login': async () => {
        await gate;
        return reply(200, { token: 't', expiresAt: 'x', user: sampleUser });
      },
      'GET /api/users/me': reply(200, sampleUser),
    });
    render(<LoginForm />);
    fireEvent.input(screen.getByLabelText('Email or username'), { target: { value: '  ada@example.com ' } });
    fireEvent.input(screen.getByLabelText('Password'), { target: { value: 'demo-password-123' } });
    fireEvent.click(screen.getByLabelText('Keep me logged in'));
    fireEvent.click(screen.getByRole('button', { name: 'Log in' }));

    const busy = await screen.findByRole('button', { name: 'Logging in…' });
    expect(busy).toHaveProperty('disabled', true);
    expect(loginStatus.get()).toBe('requesting');
    await act(async () => release());
    await waitFor(() => expect(navigate).toHaveBeenCalledWith('/home'));
    expect(calls[0]!.body).toEqual({ email: 'ada@example.com', password: 'demo-password-123', remember: false });
    expect(loggedIn.get()).toBe(true);
  });

  it('shows the failure in an alert and toasts it', async () => {
    stubFetch({ 'POST /api/auth/login': reply(400, { message: 'Incorrect credentials!', code: 'INVALID_CREDENTIALS' }) });
    render(<LoginForm />);
    fireEvent.input(screen.getByLabelText('Email or username'), { target: { value: 'ada' } });
    fireEvent.input(screen.getByLabelText('Password'), { target: { value: 'wrong' } });
    fireEvent.submit(screen.getByTestId('login-form'));
    expect((await screen.findByRole('alert')).textContent).toBe('Incorrect credentials!');
    expect(toasts.get().map((t) => t.message)).toEqual(['Incorrect credentials!']);
    expect(screen.getByRole('button', { name: 'Log in' })).toHaveProperty('disabled', false);
    expect(navigate).not.toHaveBeenCalled();
  });
});

describe('LoginForm captcha', () => {
  it('shows the captcha once the server asks for one, and sends its token with the next try', async () => {
    setPageJson('public-settings', { siteName: 'Fanstage', captchaEnabled: true, captchaSiteKey: 'site-key' });
    const rendered: Array<{ callback: (token: string) => void }> = [];
    // A stand-in for Google's script, so the widget "renders" without the network.
    window.grecaptcha = { ready: (cb) => cb(), render: (_el, opts) => (rendered.push(opts), 1), reset: vi.fn() };
    onTestFinished(() => {
      delete window.grecaptcha;
      document.getElementById('public-settings')?.remove();
    });
    let answer = reply(400, { message: 'Please complete the captcha to log in.', code: 'CAPTCHA_REQUIRED' });
    const { calls } = stubFetch({ 'POST /api/auth/login': async () => answer, 'GET /api/users/me': reply(200, sampleUser) });
    render(<LoginForm />);
    expect(screen.queryByTestId('captcha')).toBeNull();
    fireEvent.input(screen.getByLabelText('Email or username'), { target: { value: 'ada' } });
    fireEvent.input(screen.getByLabelText('Password'), { target: { value: 'right-password' } });
    fireEvent.submit(screen.getByTestId('login-form'));
    expect((await screen.findByRole('alert')).textContent).toBe('Please complete the captcha to log in.');
    await screen.findByTestId('captcha');
    await waitFor(() => expect(rendered).toHaveLength(1));
    act(() => rendered[0]!.callback('solved-token'));
    answer = reply(200, { token: 't', expiresAt: 'x', user: sampleUser });
    fireEvent.submit(screen.getByTestId('login-form'));
    await waitFor(() => expect(navigate).toHaveBeenCalledWith('/home'));
    expect(calls[0]!.body).toEqual({ email: 'ada', password: 'right-password', remember: true });
    expect(calls[1]!.body).toEqual({ email: 'ada', password: 'right-password', remember: true, captchaToken: 'solved-token' });
  });
});

describe('Toaster', () => {
  it('renders toasts with role="status" and dismisses them after about 4 s', async () => {
    vi.useFakeTimers();
    render(<Toaster />);
    act(() => {
      toast.success('Saved');
      toast.error('Failed');
    });
    const items = screen.getAllByTestId('toast');
    expect(items.map((i) => [i.getAttribute('role'), i.className, i.textContent])).toEqual([
      ['status', 'toast toast--success', 'Saved×'],
      ['status', 'toast toast--error', 'Failed×'],
    ]);
    act(() => vi.advanceTimersByTime(TOAST_TIMEOUT_MS - 10));
    expect(screen.getAllByTestId('toast')).toHaveLength(2);
    act(() => vi.advanceTimersByTime(20));
    expect(screen.queryAllByTestId('toast')).toHaveLength(0);
    expect(toasts.get()).toEqual([]);
  });

  it('can be dismissed by hand', () => {
    render(<Toaster />);
    act(() => void toast.info('Hello'));
    fireEvent.click(screen.getByRole('button', { name: 'Dismiss notification' }));
    expect(screen.queryAllByTestId('toast')).toHaveLength(0);
  });
});

describe('UserMenu', () => {
  it('offers Log in and Sign up to guests', () => {
    render(<UserMenu initialUser={null} />);
    expect(screen.getByRole('link', { name: 'Log in' }).getAttribute('href')).toBe('/auth/login');
    expect(screen.getByRole('link', { name: 'Sign up' }).getAttribute('href')).toBe('/auth/register');
    expect(screen.getByRole('link', { name: 'Cart' }).getAttribute('href')).toBe('/cart');
    expect(loggedIn.get()).toBe(false);
  });

  it('shows the user with the default avatar, the account links and logs out', async () => {
    const { calls } = stubFetch({ 'POST /api/auth/logout': reply(204) });
    render(<UserMenu initialUser={{ _id: 'u1', name: 'Ada', username: 'ada', role: 'user', avatar: null }} />);
    expect(loggedIn.get()).toBe(true);
    expect(currentUser.get()?.avatar).toBe(DEFAULT_AVATAR);
    const toggle = screen.getByTestId('user-menu-toggle');
    expect(toggle.textContent).toContain('Ada');
    expect(toggle.querySelector('img')!.getAttribute('src')).toBe(DEFAULT_AVATAR);
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    const panel = document.getElementById('user-menu-panel')!;
    const hrefs = within(panel).getAllByRole('link').map((a) => [a.textContent, a.getAttribute('href')]);
    const own = [
      ['Home', '/home'],
      ['Subscriptions', '/account/subscriptions'],
      ['Following', '/account/following'],
      ['Orders', '/account/orders'],
      ['Transactions', '/account/transactions'],
      ['Favourites', '/account/favourites'],
      ['Watch later', '/account/watch-later'],
      ['Notifications', '/account/notifications'],
      ['Profile', '/account/profile'],
    ];
    expect(hrefs).toEqual(own);
    fireEvent.keyDown(document, { key: 'Escape' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');

    fireEvent.click(toggle);
    fireEvent.click(screen.getByTestId('logout'));
    await waitFor(() => expect(navigate).toHaveBeenCalledWith('/auth/login'));
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(['POST /api/auth/logout']);
    // 'Log out!' is for the login page the browser goes to, not this one.
    expect(toasts.get()).toEqual([]);
    expect(JSON.parse(sessionStorage.getItem(TOAST_STORAGE_KEY) ?? '[]').map((t: { message: string }) => t.message)).toEqual(['Log out!']);
    expect(currentUser.get()).toBeNull();
  });

  it('adds the studio for a performer and the console for an admin', () => {
    for (const [role, link] of [['performer', ['Studio', '/studio']], ['admin', ['Admin', '/admin']]] as const) {
      const { unmount } = render(<UserMenu initialUser={{ _id: `u-${role}`, name: role, username: role, role, avatar: null }} />);
      fireEvent.click(screen.getByTestId('user-menu-toggle'));
      const hrefs = within(document.getElementById('user-menu-panel')!).getAllByRole('link').map((a) => [a.textContent, a.getAttribute('href')]);
      expect(hrefs.at(-1)).toEqual(link);
      expect(hrefs.map(([, href]) => href)).toEqual(expect.arrayContaining(['/account/subscriptions', '/account/orders', '/account/transactions', '/account/favourites', '/account/watch-later', '/account/profile']));
      expect(hrefs.filter(([, href]) => href === '/studio' || href === '/admin')).toEqual([link]);
      unmount();
    }
  });
});

describe('CartLink', () => {
  it('shows the number of items in the cart once mounted, and follows the cart', async () => {
    clearCart();
    addToCart({ _id: 'p1', quantity: 2 });
    render(<CartLink />);
    const link = screen.getByTestId('cart-link');
    expect(link.getAttribute('href')).toBe('/cart');
    await waitFor(() => expect(screen.getByTestId('header-cart-count').textContent).toBe('2'));
    expect(link.getAttribute('aria-label')).toBe('Cart, 2 items');
    act(() => void addToCart({ _id: 'p2' }));
    expect(screen.getByTestId('header-cart-count').textContent).toBe('3');
    // Another tab writes the cart: the browser says so with a storage event on this page.
    act(() => {
      localStorage.setItem('cart', JSON.stringify({ total: 0, items: [{ _id: 'x', quantity: 5 }, { _id: 'x', quantity: 9 }, { _id: 'y', quantity: -1 }] }));
      window.dispatchEvent(new StorageEvent('storage', { key: 'cart' }));
    });
    expect(screen.getByTestId('header-cart-count').textContent).toBe('5');
    act(() => clearCart());
    expect(screen.queryByTestId('header-cart-count')).toBeNull();
    expect(link.getAttribute('aria-label')).toBe('Cart');
    expect(cartLabel(1)).toBe('Cart, 1 item');
  });
});

describe('VerifyEmail', () => {
  it('posts the token once and shows the success message', async () => {
    const { calls } = stubFetch({ 'POST /api/auth/email-verification': reply(200, { message: 'Your email address has been verified.' }) });
    render(<VerifyEmail token="abc" />);
    expect(screen.getByText('Verifying your email address…')).toBeTruthy();
    expect((await screen.findByTestId('verify-email-success')).textContent).toContain('Your email address has been verified.');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.body).toEqual({ token: 'abc' });
  });

  it('reads ?token= when no prop is given, shows the server message and offers a resend', async () => {
    window.history.replaceState(null, '', '/auth/verify-email?token=from-url');
    const { calls } = stubFetch({
      'POST /api/auth/email-verification': reply(400, { message: 'This link has expired. Please request a new one.', code: 'TOKEN_EXPIRED' }),
      'POST /api/auth/email-verification/resend': reply(200, { message: 'A new verification link is on its way.' }),
    });
    render(<VerifyEmail />);
    expect((await screen.findByRole('alert')).textContent).toBe('This link has expired. Please request a new one.');
    expect(calls[0]!.body).toEqual({ token: 'from-url' });
    fireEvent.input(screen.getByLabelText('Email'), { target: { value: 'ada@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send link' }));
    expect((await screen.findByRole('status')).textContent).toContain('A new verification link is on its way.');
    expect(calls[1]!.body).toEqual({ email: 'ada@example.com' });
  });
});

describe('form field errors', () => {
  it('ProfileForm sends only changed fields and shows validation messages next to the fields', async () => {
    const { calls } = stubFetch({
      'GET /api/countries/list': reply(200, [{ code: 'GB', name: 'United Kingdom', flag: '' }, { code: 'FR', name: 'France', flag: '' }]),
      'PUT /api/users': reply(400, {
        message: 'Invalid body.username: Username must be 3 to 30 characters',
        code: 'VALIDATION_FAILED',
        details: [{ path: 'body.username', message: 'Username must be 3 to 30 characters' }],
      }),
    });
    render(<ProfileForm initialUser={sampleUser} />);
    await screen.findByRole('option', { name: 'France' });
    fireEvent.input(screen.getByLabelText('Username'), { target: { value: 'A!' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save changes' }));
    const input = screen.getByLabelText('Username');
    await waitFor(() => expect(input.getAttribute('aria-invalid')).toBe('true'));
    const errorId = input.getAttribute('aria-describedby')!.split(' ').pop()!;
    expect(document.getElementById(errorId)!.textContent).toBe('Username must be 3 to 30 characters');
    expect(document.getElementById(errorId)!.getAttribute('role')).toBe('alert');
    expect(calls.find((c) => c.method === 'PUT')!.body).toEqual({ username: 'A!' });
    expect(screen.getByRole('button', { name: 'Save changes' })).toHaveProperty('disabled', false);
  });

  it('PasswordForm checks the confirmation before calling the API, then sends source', async () => {
    const { calls } = stubFetch({ 'PUT /api/auth/users/me/password': reply(200, { message: 'Your password has been changed.' }) });
    render(<PasswordForm source="performer" />);
    fireEvent.input(screen.getByLabelText('Current password'), { target: { value: 'old-pass-1' } });
    fireEvent.input(screen.getByLabelText('New password'), { target: { value: 'new-pass-1' } });
    fireEvent.input(screen.getByLabelText('Confirm new password'), { target: { value: 'different' } });
    fireEvent.submit(screen.getByTestId('password-form'));
    expect((await screen.findByRole('alert')).textContent).toBe('The passwords do not match');
    expect(calls).toHaveLength(0);
    fireEvent.input(screen.getByLabelText('Confirm new password'), { target: { value: 'new-pass-1' } });
    fireEvent.submit(screen.getByTestId('password-form'));
    expect((await screen.findByTestId('form-success')).textContent).toContain('Your password has been changed.');
    expect(calls[0]!.body).toEqual({ password: 'new-pass-1', currentPassword: 'old-pass-1', source: 'performer' });
    expect((screen.getByLabelText('Current password') as HTMLInputElement).value).toBe('');
  });

  it('RegisterForm puts a taken username (409) next to the field, then shows the server message on success', async () => {
    let attempt = 0;
    const { calls } = stubFetch({
      'POST /api/auth/users/register': () =>
        ++attempt === 1
          ? reply(409, { message: 'This username is already taken.', code: 'CONFLICT', details: { field: 'username' } })
          : reply(201, { message: 'Thank you for signing up!', user: sampleUser }),
    });
    render(<RegisterForm initialRole="performer" />);
    expect(screen.getByLabelText('a performer')).toHaveProperty('checked', true);
    fireEvent.input(screen.getByLabelText('Name'), { target: { value: 'Ada' } });
    fireEvent.input(screen.getByLabelText('Username'), { target: { value: 'ada' } });
    fireEvent.input(screen.getByLabelText('Email'), { target: { value: 'ada@example.com' } });
    fireEvent.input(screen.getByLabelText('Password'), { target: { value: 'secret-123' } });
    fireEvent.input(screen.getByLabelText('Confirm password'), { target: { value: 'secret-123' } });
    // Both confirmations are required before anything is sent.
    fireEvent.submit(screen.getByTestId('register-form'));
    expect((await screen.findAllByRole('alert')).map((a) => a.textContent)).toEqual([ADULT_REQUIRED, TERMS_REQUIRED]);
    expect(calls).toHaveLength(0);
    fireEvent.click(screen.getByLabelText('I am 18 years old or older'));
    fireEvent.click(screen.getByTestId('register-terms'));
    fireEvent.submit(screen.getByTestId('register-form'));
    expect((await screen.findByRole('alert')).textContent).toBe('This username is already taken.');
    expect(screen.getByLabelText('Username').getAttribute('aria-invalid')).toBe('true');
    fireEvent.submit(screen.getByTestId('register-form'));
    expect((await screen.findByRole('status')).textContent).toContain('Thank you for signing up!');
    expect(calls[0]!.body).toEqual({ name: 'Ada', username: 'ada', email: 'ada@example.com', password: 'secret-123', role: 'performer', confirmAdult: true, acceptTerms: true });
  });

  it('ResetPasswordForm posts the token and the new password', async () => {
    const { calls } = stubFetch({ 'POST /api/auth/users/reset-password': reply(200, { message: 'Your password has been changed.' }) });
    render(<ResetPasswordForm token="reset-tok" />);
    fireEvent.input(screen.getByLabelText('New password'), { target: { value: 'brand-new-1' } });
    fireEvent.input(screen.getByLabelText('Confirm new password'), { target: { value: 'brand-new-1' } });
    fireEvent.submit(screen.getByTestId('reset-password-form'));
    expect((await screen.findByRole('status')).textContent).toContain('Your password has been changed.');
    expect(calls[0]!.body).toEqual({ token: 'reset-tok', password: 'brand-new-1' });
  });

  it('AvatarUpload previews the chosen image and shows a 413 message', async () => {
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: vi.fn(() => 'blob:preview'), revokeObjectURL: vi.fn() }));
    stubFetch({ 'POST /api/users/avatar/upload': reply(413, { message: 'The image is too large: at most 5 MB.', code: 'PAYLOAD_TOO_LARGE' }) });
    render(<AvatarUpload initialUser={{ ...sampleUser, avatar: '' }} />);
    expect(screen.getByTestId('avatar-preview').getAttribute('src')).toBe(DEFAULT_AVATAR);
    const file = new File([new Uint8Array(10)], 'me.png', { type: 'image/png' });
    fireEvent.change(screen.getByLabelText('Choose a new avatar'), { target: { files: [file] } });
    expect(screen.getByTestId('avatar-preview').getAttribute('src')).toBe('blob:preview');
    fireEvent.click(screen.getByRole('button', { name: 'Upload avatar' }));
    expect((await screen.findByRole('alert')).textContent).toBe('The image is too large: at most 5 MB.');
  });

  it('AvatarUpload refuses a non-image file without uploading', () => {
    const { calls } = stubFetch({});
    render(<AvatarUpload initialUser={sampleUser} />);
    fireEvent.change(screen.getByLabelText('Choose a new cover image'), { target: { files: [new File(['x'], 'notes.txt', { type: 'text/plain' })] } });
    expect(screen.getByRole('alert').textContent).toBe('Please choose an image file.');
    expect(calls).toHaveLength(0);
  });
});

describe('RouteProgress', () => {
  const click = (init: MouseEventInit = {}) => new MouseEvent('click', { button: 0, bubbles: true, cancelable: true, ...init });
  const link = (href: string, attrs: Record<string, string> = {}) => {
    const a = document.createElement('a');
    a.href = href;
    for (const [k, v] of Object.entries(attrs)) a.setAttribute(k, v);
    return a;
  };

  it('counts only plain clicks on same-origin page links', () => {
    window.history.replaceState(null, '', '/performers?page=2');
    expect(isPageNavigation(click(), link('/home'))).toBe(true);
    expect(isPageNavigation(click(), link('/performers?page=3'))).toBe(true);
    expect(isPageNavigation(click(), link('https://elsewhere.example/'))).toBe(false);
    expect(isPageNavigation(click(), link('/performers?page=2#top'))).toBe(false);
    expect(isPageNavigation(click(), link('/file.pdf', { download: '' }))).toBe(false);
    expect(isPageNavigation(click(), link('/home', { target: '_blank' }))).toBe(false);
    expect(isPageNavigation(click({ ctrlKey: true }), link('/home'))).toBe(false);
    expect(isPageNavigation(click({ button: 1 }), link('/home'))).toBe(false);
    expect(isPageNavigation(click(), link('mailto:a@b.co'))).toBe(false);
  });

  it('shows the bar on a link click and hides it on pageshow', async () => {
    render(<RouteProgress />);
    expect(screen.queryByTestId('route-progress')).toBeNull();
    const a = link('/home');
    a.textContent = 'Home';
    // jsdom cannot navigate: cancel the click after the island's document listener has seen it.
    const stop = (e: Event) => e.preventDefault();
    window.addEventListener('click', stop);
    document.body.append(a);
    act(() => void a.dispatchEvent(click()));
    expect(screen.getByTestId('route-progress').className).toBe('route-progress is-loading');
    act(() => void window.dispatchEvent(new Event('pageshow')));
    expect(screen.getByTestId('route-progress').className).toBe('route-progress is-done');
    await waitFor(() => expect(screen.queryByTestId('route-progress')).toBeNull());
    a.remove();
    window.removeEventListener('click', stop);
  });
});

describe('ContactForm', () => {
  const fill = () => {
    fireEvent.input(screen.getByLabelText('Your name'), { target: { value: ' Ada ' } });
    fireEvent.input(screen.getByLabelText('Your email'), { target: { value: 'ada@example.com' } });
    fireEvent.input(screen.getByLabelText('Message'), { target: { value: 'A question about my order, please.' } });
  };

  it('sends the trimmed fields once, says thank you and empties the form', async () => {
    const { calls } = stubFetch({ 'POST /api/contact': reply(200, { sent: true }) });
    render(<ContactForm />);
    fill();
    fireEvent.click(screen.getByTestId('contact-submit'));
    await screen.findByText(CONTACT_SENT);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.body).toEqual({ name: 'Ada', email: 'ada@example.com', message: 'A question about my order, please.' });
    expect(screen.getByLabelText('Message')).toHaveProperty('value', '');
  });

  it('puts a refused field\'s message beside it and keeps what was typed', async () => {
    stubFetch({ 'POST /api/contact': reply(400, { message: 'Invalid input', code: 'VALIDATION_FAILED', details: [{ path: 'email', message: 'Enter a valid email' }] }) });
    render(<ContactForm />);
    fill();
    fireEvent.click(screen.getByTestId('contact-submit'));
    await screen.findByText('Enter a valid email');
    expect(screen.queryByText(CONTACT_SENT)).toBeNull();
    expect(screen.getByLabelText('Message')).toHaveProperty('value', 'A question about my order, please.');
  });
});
