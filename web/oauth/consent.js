// The OAuth consent page. Served with a strict CSP: no inline code, and every piece of
// server data reaches the page through textContent or attributes, never as markup.

const DETAIL_PARAMS = [
  'client_id',
  'redirect_uri',
  'code_challenge',
  'code_challenge_method',
  'response_type',
  'resource',
];
const REQUIRED_PARAMS = ['client_id', 'redirect_uri', 'code_challenge'];
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

const params = new URLSearchParams(window.location.search);
const $ = (id) => document.getElementById(id);

/** The login JWT lives only in this page's memory; the refresh cookie is httpOnly. */
let accessToken = null;
let currentUser = null;
let refreshing = null;
let busy = false;

class ApiError extends Error {
  constructor(status, code, message, details = []) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }

  /** Validation failures name each bad parameter; other errors keep the service's message. */
  get readable() {
    const lines = this.details
      .filter((detail) => detail && typeof detail.message === 'string')
      .map((detail) =>
        `${String(detail.path ?? '').replace(/^(query|body)\./, '')} ${detail.message}`.trim(),
      );
    return lines.length > 0 ? lines.join('; ') : this.message;
  }
}

/** What to tell the person about a failure. */
function explain(error) {
  if (error instanceof ApiError) return error.status === 0 ? error.message : error.readable;
  return 'Something went wrong on this page. Reload it to try again.';
}

// ---------------------------------------------------------------------------- talking to the service

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

async function api(method, path, { body, token, csrf } = {}) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
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
    throw new ApiError(
      0,
      'NETWORK',
      'The service could not be reached. Check your connection and try again.',
    );
  }
  let data = null;
  if (response.status !== 204) {
    try {
      data = await response.json();
    } catch {
      data = null;
    }
  }
  if (!response.ok) {
    const error = data && typeof data === 'object' ? data.error : null;
    const message =
      error && typeof error.message === 'string'
        ? error.message
        : `The service answered with an error (HTTP ${response.status}).`;
    throw new ApiError(
      response.status,
      error && typeof error.code === 'string' ? error.code : '',
      message,
      error && Array.isArray(error.details) ? error.details : [],
    );
  }
  return data;
}

/**
 * A new login JWT from the refresh cookie, or null when there is no usable session. One
 * rotation at a time: a second concurrent rotation would look like a replay to the service.
 */
function refreshSession() {
  refreshing ??= (async () => {
    const csrf = readCookie('csrf_token');
    if (!csrf) return null;
    try {
      const session = await api('POST', '/api/auth/refresh', { csrf });
      accessToken = session.accessToken;
      currentUser = session.user;
      return session;
    } catch (error) {
      if (error.status === 0) throw error;
      return null;
    }
  })().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/** Runs an authenticated call; an expired JWT is refreshed once, and no session means sign in. */
async function withSession(call) {
  try {
    return await call(accessToken);
  } catch (error) {
    if (error.status !== 401) throw error;
    const session = await refreshSession();
    if (!session) {
      showSignIn('Your session has ended. Sign in again to continue.');
      return undefined;
    }
    return call(accessToken);
  }
}

// ---------------------------------------------------------------------------- views and announcements

function showView(name, focusId) {
  for (const view of document.querySelectorAll('.view')) view.hidden = view.id !== `view-${name}`;
  $('main').setAttribute('aria-busy', 'false');
  if (focusId) $(focusId).focus();
}

function announce(message) {
  $('status').textContent = message;
}

function alertError(message) {
  // Cleared first so that the same message twice is announced twice.
  $('alert').textContent = '';
  window.setTimeout(() => {
    $('alert').textContent = message;
  }, 50);
}

function clearMessages() {
  $('status').textContent = '';
  $('alert').textContent = '';
}

function showFailure(message) {
  clearMessages();
  $('failure-message').textContent = message;
  showView('failure', 'failure-title');
}

function setBusy(value, label) {
  busy = value;
  for (const id of ['approve', 'deny', 'signin-button', 'switch-account']) $(id).disabled = value;
  if (label) announce(label);
}

// ---------------------------------------------------------------------------- sign-in

function showSignIn(message) {
  accessToken = null;
  currentUser = null;
  clearMessages();
  setBusy(false);
  showView('signin', 'email');
  if (message) alertError(message);
}

function setInvalid(input, invalid) {
  if (invalid) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
}

async function onSignIn(event) {
  event.preventDefault();
  if (busy) return;
  const email = $('email');
  const password = $('password');
  const emailValue = email.value.trim();
  setInvalid(email, !emailValue || !email.validity.valid);
  setInvalid(password, !password.value);
  if (!emailValue || !email.validity.valid) {
    alertError(emailValue ? 'Enter a valid email address.' : 'Enter your email address.');
    email.focus();
    return;
  }
  if (!password.value) {
    alertError('Enter your password.');
    password.focus();
    return;
  }
  clearMessages();
  setBusy(true, 'Signing in…');
  try {
    const session = await api('POST', '/api/auth/login', {
      body: { email: emailValue, password: password.value },
    });
    accessToken = session.accessToken;
    currentUser = session.user;
  } catch (error) {
    setBusy(false);
    announce('');
    if (error.status === 401) {
      setInvalid(email, true);
      setInvalid(password, true);
      alertError('Email or password is incorrect.');
    } else if (error.status === 400) {
      alertError('Enter a valid email address and your password.');
    } else {
      alertError(explain(error));
    }
    password.focus();
    return;
  }
  password.value = '';
  setInvalid(email, false);
  setInvalid(password, false);
  setBusy(false);
  await loadDetails();
}

async function onSwitchAccount() {
  if (busy) return;
  setBusy(true, 'Signing out…');
  try {
    await api('POST', '/api/auth/logout', { csrf: readCookie('csrf_token') ?? '' });
  } catch {
    // Signed out or not, the form below signs in whoever comes next.
  }
  showSignIn();
  announce('Signed out. Sign in with another account.');
}

// ---------------------------------------------------------------------------- the consent itself

/** A logo is shown only from https or an inline image. */
function safeImageUrl(value) {
  if (typeof value !== 'string' || !value) return null;
  try {
    const url = new URL(value);
    if (url.protocol === 'https:') return url.href;
    if (url.protocol === 'data:' && /^data:image\/(png|gif|jpeg|webp|svg\+xml)[;,]/i.test(value))
      return value;
  } catch {
    // not a URL
  }
  return null;
}

function webUrl(value) {
  if (typeof value !== 'string' || !value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : null;
  } catch {
    return null;
  }
}

function renderGroups(groups) {
  const list = $('group-list');
  list.replaceChildren();
  groups.forEach((group, index) => {
    const id = `group-${index}`;
    const item = document.createElement('div');
    item.className = 'group';

    const input = document.createElement('input');
    input.type = 'radio';
    input.name = 'permission-group';
    input.id = id;
    input.value = String(group.id);
    input.checked = index === 0;

    const label = document.createElement('label');
    label.htmlFor = id;
    label.className = 'group-label';
    label.textContent = String(group.label ?? group.id);

    const body = document.createElement('div');
    body.className = 'group-body';
    body.append(label);
    const describedBy = [];
    if (group.description) {
      const description = document.createElement('p');
      description.id = `${id}-description`;
      description.className = 'group-description';
      description.textContent = String(group.description);
      body.append(description);
      describedBy.push(description.id);
    }
    const highlights = Array.isArray(group.highlights) ? group.highlights : [];
    if (highlights.length > 0) {
      const ul = document.createElement('ul');
      ul.id = `${id}-highlights`;
      ul.className = 'highlights';
      for (const text of highlights) {
        const li = document.createElement('li');
        li.textContent = String(text);
        ul.append(li);
      }
      body.append(ul);
      describedBy.push(ul.id);
    }
    if (describedBy.length > 0) input.setAttribute('aria-describedby', describedBy.join(' '));
    item.append(input, body);
    list.append(item);
  });
}

function renderConsent(details) {
  const name = String(details.clientName || details.clientId || 'An app');
  $('client-name').textContent = name;

  const logo = $('client-logo');
  const logoUrl = safeImageUrl(details.clientLogoUrl);
  logo.hidden = true;
  logo.removeAttribute('src');
  if (logoUrl) {
    logo.alt = `${name} logo`;
    logo.addEventListener('load', () => {
      logo.hidden = false;
    });
    logo.addEventListener('error', () => {
      logo.hidden = true;
    });
    logo.src = logoUrl;
  }

  const homepage = webUrl(details.clientHomepageUrl);
  $('client-homepage').replaceChildren();
  $('client-homepage').hidden = !homepage;
  if (homepage) {
    const link = document.createElement('a');
    link.id = 'client-homepage-link';
    link.href = homepage.href;
    link.target = '_blank';
    link.rel = 'noopener noreferrer';
    link.textContent = homepage.host;
    link.title = `${name}'s homepage: ${homepage.href}`;
    $('client-homepage').append(link);
  }

  $('client-description').hidden = !details.clientDescription;
  $('client-description').textContent = details.clientDescription ? String(details.clientDescription) : '';

  const redirect = webUrl(details.redirectUri ?? params.get('redirect_uri'));
  $('redirect-host').textContent = redirect ? redirect.host : String(details.redirectUri ?? '');
  $('redirect-note').textContent =
    redirect && LOOPBACK_HOSTS.has(redirect.hostname) ? ' (an app on this device)' : '';

  const groups = Array.isArray(details.availablePermissionGroups)
    ? details.availablePermissionGroups.filter((group) => group && group.canAssign !== false)
    : [];
  renderGroups(groups);
  $('groups').hidden = groups.length === 0;
  $('no-groups').hidden = groups.length > 0;
  $('approve').hidden = groups.length === 0;

  $('account-email').textContent = currentUser?.email ? String(currentUser.email) : 'your account';
  clearMessages();
  setBusy(false);
  showView('consent', 'consent-title');
}

async function loadDetails() {
  const query = new URLSearchParams();
  for (const name of DETAIL_PARAMS) {
    const value = params.get(name);
    if (value !== null) query.set(name, value);
  }
  announce('Loading the request…');
  let details;
  try {
    details = await withSession((token) => api('GET', `/api/oauth/consent-details?${query}`, { token }));
  } catch (error) {
    // No redirect on a bad request: the redirect address itself may be what is wrong.
    showFailure(explain(error));
    return;
  }
  if (details) renderConsent(details);
}

/** Only a redirect back to the registered address (http or https) is followed. */
function safeRedirect(value) {
  const target = webUrl(value);
  const registered = webUrl(params.get('redirect_uri'));
  if (!target || !registered) return null;
  if (target.origin !== registered.origin || target.pathname !== registered.pathname) return null;
  return target.href;
}

async function decide(approve) {
  if (busy) return;
  const chosen = document.querySelector('input[name="permission-group"]:checked');
  if (approve && !chosen) {
    alertError('Choose what the app may do first.');
    return;
  }
  clearMessages();
  setBusy(true, approve ? 'Approving…' : 'Denying…');
  const body = {
    clientId: params.get('client_id'),
    redirectUri: params.get('redirect_uri'),
    state: params.get('state') ?? '',
    codeChallenge: params.get('code_challenge'),
    approve,
    permissionGroupId: chosen ? chosen.value : null,
  };
  // RFC 8707: the resource of the authorize request, when the app named one.
  if (params.has('resource')) body.resource = params.get('resource');
  let result;
  try {
    result = await withSession((token) => api('POST', '/api/oauth/consent', { body, token }));
  } catch (error) {
    setBusy(false);
    announce('');
    alertError(explain(error));
    return;
  }
  if (!result) return;
  const target = safeRedirect(result.redirectUrl);
  if (!target) {
    showFailure('The service answered with an unexpected address, so this page stays here.');
    return;
  }
  announce(`Sending you back to ${new URL(target).host}…`);
  window.location.assign(target);
}

// ---------------------------------------------------------------------------- start

async function start() {
  $('signin-form').addEventListener('submit', onSignIn);
  $('approve').addEventListener('click', () => decide(true));
  $('deny').addEventListener('click', () => decide(false));
  $('switch-account').addEventListener('click', onSwitchAccount);

  const missing = REQUIRED_PARAMS.filter((name) => !params.get(name));
  if (missing.length > 0) {
    showFailure(`The link that opened this page is incomplete (missing ${missing.join(', ')}).`);
    return;
  }
  try {
    if (await refreshSession()) await loadDetails();
    else showSignIn();
  } catch (error) {
    showFailure(explain(error));
  }
}

// Back from the app's page: a page restored from the back-forward cache would show a spent request.
window.addEventListener('pageshow', (event) => {
  if (event.persisted) window.location.reload();
});

start();
