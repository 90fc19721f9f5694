// The calendar-sync landing page: where a provider connect starts (the Connect buttons, or
// `?connect=<provider>` from another app) and ends (success=connected or
// error=<code>&message=<text>), and each provider's status. The connect call is made from this
// page so its binding cookie lands in the browser the provider sends back to the callback.
// Served with a strict CSP: no inline code; every server value reaches the page through
// textContent, never as markup.

const PROVIDER_NAMES = {
  calendar_provider_a: 'Calendar provider A',
  calendar_provider_b: 'Calendar provider B',
};
const STATE_LABELS = {
  connected: 'Connected',
  needs_reconnect: 'Needs reconnecting',
  not_connected: 'Not connected',
};

const $ = (id) => document.getElementById(id);
/** The login JWT lives only in this page's memory; the refresh cookie is httpOnly. */
let accessToken = null;
let busy = false;
/** A provider to connect once the status is shown (`?connect=`), signed in first if need be. */
let pendingConnect = null;

class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

function readCookie(name) {
  for (const part of document.cookie.split(';')) {
    const index = part.indexOf('=');
    if (index < 0 || part.slice(0, index).trim() !== name) continue;
    try {
      return decodeURIComponent(part.slice(index + 1).trim());
    } catch {
      return null;
    }
  }
  return null;
}

async function api(method, path, { body, csrf } = {}) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (accessToken) headers.authorization = `Bearer ${accessToken}`;
  if (csrf) headers['x-csrf-token'] = csrf;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
      redirect: 'error',
    });
  } catch {
    throw new ApiError(0, 'The service could not be reached. Check your connection and try again.');
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const message =
      data?.error && typeof data.error.message === 'string'
        ? data.error.message
        : `The service answered with an error (HTTP ${response.status}).`;
    throw new ApiError(response.status, message);
  }
  return data;
}

/** A login JWT from the refresh cookie, or false when there is no usable session. */
async function refreshSession() {
  const csrf = readCookie('csrf_token');
  if (!csrf) return false;
  try {
    const session = await api('POST', '/api/auth/refresh', { csrf });
    accessToken = session.accessToken;
    return true;
  } catch (error) {
    if (error.status === 0) throw error;
    return false;
  }
}

/** Runs an authenticated call; an expired JWT is refreshed once; no session shows the sign-in. */
async function withSession(call) {
  try {
    if (!accessToken && !(await refreshSession())) throw new ApiError(401, 'Sign in');
    return await call();
  } catch (error) {
    if (error.status !== 401) throw error;
    if (await refreshSession()) return call();
    showView('signin', 'email');
    return undefined;
  }
}

function showView(name, focusId) {
  for (const view of document.querySelectorAll('.view')) view.hidden = view.id !== `view-${name}`;
  $('main').setAttribute('aria-busy', 'false');
  if (focusId) $(focusId).focus();
}

function alertError(message) {
  $('alert').textContent = '';
  window.setTimeout(() => {
    $('alert').textContent = message;
  }, 50);
}

function setBusy(value) {
  busy = value;
  for (const button of document.querySelectorAll('button')) button.disabled = value;
}

/** Shows the outcome the provider redirect carried, then drops it from the address bar. */
function showResult() {
  const params = new URLSearchParams(window.location.search);
  const wanted = params.get('connect');
  if (wanted && Object.hasOwn(PROVIDER_NAMES, wanted)) pendingConnect = wanted;
  const result = $('result');
  const provider = PROVIDER_NAMES[params.get('provider')] ?? 'The calendar provider';
  if (params.get('success') === 'connected') {
    result.textContent = `${provider} is connected. Choose which calendars to sync.`;
    result.className = 'result ok';
    result.hidden = false;
  } else if (params.has('error')) {
    const message = (params.get('message') ?? '').slice(0, 300);
    result.textContent = message || 'Connecting the calendar failed. Try again.';
    result.className = 'result error';
    result.hidden = false;
  }
  if (window.location.search) window.history.replaceState(null, '', window.location.pathname);
}

function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function formatTime(iso) {
  if (!iso) return 'not yet';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? 'unknown' : date.toLocaleString();
}

function renderProvider(item) {
  const li = element('li', undefined, 'provider');
  const heading = element('h3', PROVIDER_NAMES[item.provider] ?? item.provider);
  const state = item.connectionState ?? (item.isConnected ? 'connected' : 'not_connected');
  heading.append(element('span', STATE_LABELS[state] ?? state, `badge ${state}`));
  li.append(heading);

  if (item.isConnected) {
    li.append(
      element(
        'p',
        `${item.calendars.length} calendar(s) at the provider, ${item.syncedCalendars.length} synced.`,
        'muted small',
      ),
    );
  }
  if (item.syncedCalendars.length > 0) {
    const list = element('ul', undefined, 'synced');
    for (const synced of item.syncedCalendars) {
      const direction = synced.bidirectionalSync ? 'two-way' : 'one-way';
      list.append(
        element('li', `${synced.localName} (${direction}), last synced ${formatTime(synced.lastSyncedAt)}`),
      );
    }
    li.append(list);
  }
  if (item.lastError) li.append(element('p', `Last problem: ${item.lastError.message}`, 'small'));

  const actions = element('div', undefined, 'actions');
  if (!item.isConnected) {
    const connect = element(
      'button',
      state === 'needs_reconnect' ? 'Reconnect' : 'Connect',
      'button primary',
    );
    connect.type = 'button';
    connect.addEventListener('click', () => onConnect(item.provider));
    actions.append(connect);
  }
  if (state !== 'not_connected') {
    const disconnect = element('button', 'Disconnect', 'button secondary');
    disconnect.type = 'button';
    disconnect.addEventListener('click', () => onDisconnect(item.provider));
    actions.append(disconnect);
  }
  li.append(actions);
  return li;
}

function showNote(message) {
  const result = $('result');
  result.textContent = message;
  result.className = 'result ok';
  result.hidden = false;
}

/** Asks for the consent URL from this page, so this browser keeps the connect's binding cookie. */
async function startConnect(provider) {
  const answer = await withSession(() =>
    api('GET', `/api/calendar-sync/auth/${encodeURIComponent(provider)}`),
  );
  if (!answer) return;
  showNote(`Taking you to ${PROVIDER_NAMES[provider] ?? provider}…`);
  window.location.assign(answer.authUrl);
}

async function loadStatus() {
  const status = await withSession(() => api('GET', '/api/calendar-sync/status'));
  if (!status) return;
  const list = $('providers');
  list.replaceChildren(...status.providers.map(renderProvider));
  showView('status');
  const wanted = pendingConnect;
  pendingConnect = null;
  const item = wanted && status.providers.find((p) => p.provider === wanted);
  if (!item) return;
  if (item.isConnected) showNote(`${PROVIDER_NAMES[wanted]} is already connected.`);
  else await startConnect(wanted);
}

async function run(action) {
  if (busy) return;
  setBusy(true);
  try {
    await action();
  } catch (error) {
    alertError(error.message);
  } finally {
    setBusy(false);
  }
}

function onConnect(provider) {
  run(() => startConnect(provider));
}

function onDisconnect(provider) {
  run(async () => {
    const answer = await withSession(() =>
      api('POST', `/api/calendar-sync/disconnect/${encodeURIComponent(provider)}`),
    );
    if (answer) $('alert').textContent = '';
    await loadStatus();
  });
}

function onForce() {
  run(async () => {
    const answer = await withSession(() => api('POST', '/api/calendar-sync/force'));
    if (answer) showNote(answer.message);
  });
}

async function onSignIn(event) {
  event.preventDefault();
  const email = $('email').value.trim();
  const password = $('password').value;
  if (!email || !password) {
    alertError('Enter your email address and password.');
    return;
  }
  await run(async () => {
    const session = await api('POST', '/api/auth/login', { body: { email, password } });
    accessToken = session.accessToken;
    $('password').value = '';
    await loadStatus();
  });
}

function start() {
  showResult();
  $('signin-form').addEventListener('submit', onSignIn);
  $('refresh').addEventListener('click', () => run(loadStatus));
  $('force').addEventListener('click', onForce);
  run(loadStatus);
}

start();
