// The approval page (DECISIONS.md "Agents acting safely"): the owner signs in, reads what
// their agent asked to do, and approves or denies it. Keyboard-only works throughout: every
// control is a native button or field, focus moves to each view's heading, and outcomes are
// announced. No inline script (the page CSP allows only this file).

/** The login JWT lives only in this page's memory; the refresh cookie is httpOnly. */
let accessToken = null;
let busy = false;
let approval = null;

const $ = (id) => document.getElementById(id);

/** `/approvals/<id>` or `/approvals?id=<id>`. */
function approvalId() {
  const fromPath = /^\/approvals\/(\d{1,10})\/?$/.exec(location.pathname)?.[1];
  const id = fromPath ?? new URLSearchParams(location.search).get('id') ?? '';
  return /^\d{1,10}$/.test(id) ? id : null;
}

class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

function readCookie(name) {
  for (const part of document.cookie.split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) {
      try {
        return decodeURIComponent(part.slice(index + 1).trim());
      } catch {
        return null;
      }
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
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = data && typeof data === 'object' ? data.error : null;
    throw new ApiError(
      response.status,
      error?.code ?? '',
      typeof error?.message === 'string'
        ? error.message
        : `The service answered with an error (HTTP ${response.status}).`,
    );
  }
  return data;
}

async function refreshSession() {
  const csrf = readCookie('csrf_token');
  if (!csrf) return false;
  try {
    const session = await api('POST', '/api/auth/refresh', { csrf });
    accessToken = session.accessToken;
    return true;
  } catch {
    return false;
  }
}

function announce(text) {
  $('status').textContent = text;
}
function alertError(text) {
  $('alert').textContent = text;
}

function show(view) {
  for (const section of document.querySelectorAll('.view')) section.hidden = section.id !== view;
  $('main').setAttribute('aria-busy', 'false');
  const heading = document.querySelector(`#${view} h1`);
  heading?.focus();
}

function setBusy(value, text = '') {
  busy = value;
  $('main').setAttribute('aria-busy', String(value));
  for (const button of document.querySelectorAll('button')) button.disabled = value;
  if (text) announce(text);
}

const when = (iso) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '';

const OUTCOMES = {
  pending: 'Waiting for your decision.',
  approved: 'Approved: the call is running.',
  executed: 'Approved: the call ran.',
  failed: 'Approved, but the call failed',
  denied: 'Denied: the call never ran.',
  expired: 'Expired: it was not decided within 24 hours, and the call never ran.',
};

function render() {
  $('summary').textContent = approval.summary;
  $('approval-status').textContent = approval.status;
  $('approval-action').textContent = approval.actionKey;
  $('approval-created').textContent = when(approval.createdAt);
  $('approval-expires').textContent = when(approval.expiresAt);
  $('approval-arguments').textContent = JSON.stringify(approval.arguments, null, 2);
  const pending = approval.status === 'pending';
  $('decision').hidden = !pending;
  const outcome = $('approval-outcome');
  outcome.hidden = pending;
  let text = OUTCOMES[approval.status] ?? approval.status;
  if (approval.status === 'failed' && approval.result?.error?.message)
    text += `: ${approval.result.error.message}`;
  outcome.textContent = text;
}

async function load() {
  const id = approvalId();
  if (!id) {
    $('failure-message').textContent = 'This link does not name a request.';
    show('view-failure');
    return;
  }
  if (!accessToken && !(await refreshSession())) {
    show('view-signin');
    return;
  }
  try {
    approval = await api('GET', `/api/approvals/${id}`, { token: accessToken });
  } catch (error) {
    if (error.status === 401) {
      accessToken = null;
      show('view-signin');
      return;
    }
    $('failure-message').textContent =
      error.status === 404
        ? 'There is no such request for your account. Sign in with the account that owns the agent.'
        : error.message;
    show('view-failure');
    return;
  }
  render();
  show('view-approval');
}

async function decide(action) {
  if (busy || !approval) return;
  alertError('');
  setBusy(true, action === 'approve' ? 'Approving…' : 'Denying…');
  try {
    approval = await api('POST', `/api/approvals/${approval.id}/${action}`, { token: accessToken });
  } catch (error) {
    setBusy(false);
    alertError(error.message);
    if (error.status === 409) await load();
    return;
  }
  setBusy(false);
  render();
  announce(OUTCOMES[approval.status] ?? approval.status);
  $('approval-title').focus();
}

async function onSignIn(event) {
  event.preventDefault();
  if (busy) return;
  const email = $('email');
  const password = $('password');
  if (!email.value.trim() || !password.value) {
    alertError('Enter your email address and your password.');
    (email.value.trim() ? password : email).focus();
    return;
  }
  alertError('');
  setBusy(true, 'Signing in…');
  try {
    const session = await api('POST', '/api/auth/login', {
      body: { email: email.value.trim(), password: password.value },
    });
    accessToken = session.accessToken;
  } catch (error) {
    setBusy(false);
    alertError(error.status === 401 ? 'Email or password is incorrect.' : error.message);
    password.focus();
    return;
  }
  password.value = '';
  setBusy(false);
  announce('Signed in.');
  await load();
}

$('signin-form').addEventListener('submit', onSignIn);
$('approve').addEventListener('click', () => decide('approve'));
$('deny').addEventListener('click', () => decide('deny'));
load();
