import type { Config } from '../../config.js';
import type { Actor } from '../../lib/actor.js';
import { hmacSha256, randomToken, safeEqual, sha256 } from '../../lib/crypto.js';
import { isoAfterSeconds, nowIso } from '../../lib/time.js';
import type { SyncQueue } from './jobs.js';
import type { ProviderRegistry } from './providers/index.js';
import {
  type CalendarProviderPort,
  type ExternalCalendar,
  SYNC_PROVIDERS,
  type SyncProvider,
} from './providers/port.js';
import type { SyncRepo } from './repo.js';
import type { OAuthCallbackQuery } from './schemas.js';
import { portOf, type SyncLogger } from './sync-context.js';
import { openToken, sealToken, sealTokens } from './tokens.js';

/** A connect attempt must come back within this long. */
const STATE_TTL_SECONDS = 600;
const STATE_FORMAT = /^[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}$/;
/** Connects one browser may have under way per provider (several tabs); the oldest drops out. */
const BINDINGS_PER_BROWSER = 3;
const BINDING_FORMAT = /^[A-Za-z0-9_-]{43}$/;

/** What the landing page shows for each callback failure: fixed words, nothing echoed from the query. */
const CALLBACK_ERRORS = {
  invalid_callback: 'The answer from the calendar provider was not understood. Connect again.',
  access_denied: 'Access to your calendar was not granted at the provider.',
  provider_error: 'The calendar provider reported a problem. Connect again.',
  missing_code: 'The calendar provider sent no authorization code. Connect again.',
  invalid_state: 'This connect link is invalid, expired or was already used. Connect again.',
  browser_mismatch:
    'Nothing was connected: this connect was not started in this browser. If someone sent you the link, ' +
    'do not use it; to connect your own calendar, use Connect on this page.',
  token_exchange_failed: 'The calendar provider did not complete the connection. Try again later.',
  provider_not_configured: 'This calendar provider is not available on this server.',
} as const;
type CallbackError = keyof typeof CALLBACK_ERRORS;

/**
 * What the browser that starts a connect keeps until the provider sends it back (the routes
 * hold it in an httpOnly cookie): one value per connect under way, each a MAC of its `state`,
 * and the path of the provider's callback. An empty value means the browser may forget it.
 */
export interface BrowserBinding {
  value: string;
  callbackPath: string;
  maxAgeSeconds: number;
}

export interface ConnectDeps {
  config: Config;
  repo: SyncRepo;
  providers: ProviderRegistry;
  queue: SyncQueue;
  log: SyncLogger;
}

/**
 * Connecting a provider by OAuth: a signed single-use state with PKCE, bound to the browser
 * that asked for it, and the provider's redirect back, which stores the tokens sealed.
 */
export function createConnect(deps: ConnectDeps) {
  const { config, repo, providers, queue, log } = deps;
  const key = config.encryptionKey;
  // A key of its own for state signatures, derived so ENCRYPTION_KEY is never used for two things.
  const stateKey = hmacSha256(key, 'calendar-sync-state');

  const redirectUri = (provider: SyncProvider) =>
    `${config.publicUrl}/api/calendar-sync/callback/${provider}`;
  /** The state's binding to the browser that asked for it (RFC 6749 section 10.12). */
  const bindingOf = (state: string) => hmacSha256(stateKey, `browser.${state}`);
  const heldBindings = (held: string | undefined) =>
    (held ?? '')
      .split('.')
      .filter((value) => BINDING_FORMAT.test(value))
      .slice(0, BINDINGS_PER_BROWSER);
  const browserBinding = (provider: SyncProvider, values: string[]): BrowserBinding => ({
    value: values.join('.'),
    callbackPath: new URL(redirectUri(provider)).pathname,
    maxAgeSeconds: STATE_TTL_SECONDS,
  });
  const landing = (params: Record<string, string>) =>
    `${config.frontendUrl}/calendar-sync?${new URLSearchParams(params).toString()}`;
  const callbackError = (error: CallbackError, provider?: SyncProvider) =>
    landing({ error, message: CALLBACK_ERRORS[error], ...(provider ? { provider } : {}) });

  /**
   * Spends a validly signed state: its row (unless already spent or expired), and the binding
   * the browser keeps when it holds the state's one (that one dropped).
   */
  async function spendState(
    provider: SyncProvider,
    state: string | undefined,
    held: string | undefined,
  ): Promise<{ stateRow?: { userId: number; codeVerifierEnc: string }; binding?: BrowserBinding }> {
    if (!state || !STATE_FORMAT.test(state)) return {};
    const [nonce = '', signature = ''] = state.split('.');
    if (!safeEqual(signature, hmacSha256(stateKey, `${provider}.${nonce}`))) return {};
    const stateRow = await repo.consumeState(sha256(state), provider, nowIso());
    const expected = bindingOf(state);
    const bindings = heldBindings(held);
    const matched = bindings.findIndex((value) => safeEqual(value, expected));
    const binding =
      matched >= 0
        ? browserBinding(
            provider,
            bindings.filter((_, index) => index !== matched),
          )
        : undefined;
    return { ...(stateRow ? { stateRow } : {}), ...(binding ? { binding } : {}) };
  }

  /**
   * Exchanges the code for tokens, stores the connection sealed with its calendar list (read
   * in a job when the provider does not answer it now) and resumes the calendars that were mapped.
   */
  async function connect(
    port: CalendarProviderPort,
    provider: SyncProvider,
    stateRow: { userId: number; codeVerifierEnc: string },
    code: string,
  ): Promise<void> {
    const userId = stateRow.userId;
    const verifier = openToken(key, userId, provider, 'verifier', stateRow.codeVerifierEnc);
    const issued = await port.exchangeCode({
      code,
      codeVerifier: verifier,
      redirectUri: redirectUri(provider),
    });
    let list: ExternalCalendar[] | null = null;
    try {
      list = await port.listCalendars(issued.accessToken);
    } catch (error) {
      log.warn(
        { err: error, provider },
        'calendar sync: calendar list not read at connect; retried in a job',
      );
    }
    const connection = await repo.upsertConnection(
      userId,
      provider,
      sealTokens(key, userId, provider, issued),
      list,
      nowIso(),
    );
    if (!list) await queue.calendars(connection.id);
    // A reconnect (after needs_reconnect) resumes the calendars that were mapped.
    for (const mapping of await repo.listMappings(userId, 'active')) {
      if (mapping.provider !== provider) continue;
      await queue.start(mapping.id);
    }
  }

  return {
    /**
     * The provider's consent URL with a fresh state (signed, single use, 10 minutes) and PKCE,
     * and the binding the asking browser keeps (`held`: the bindings it keeps already).
     */
    async authUrl(
      actor: Actor,
      provider: SyncProvider,
      held?: string,
    ): Promise<{ authUrl: string; binding: BrowserBinding }> {
      const port = portOf(providers, provider);
      const nonce = randomToken();
      const state = `${nonce}.${hmacSha256(stateKey, `${provider}.${nonce}`)}`;
      const verifier = randomToken();
      await repo.insertState(
        {
          stateHash: sha256(state),
          userId: actor.userId,
          provider,
          codeVerifierEnc: sealToken(key, actor.userId, provider, 'verifier', verifier),
          expiresAt: isoAfterSeconds(STATE_TTL_SECONDS),
        },
        nowIso(),
      );
      const kept = heldBindings(held).slice(0, BINDINGS_PER_BROWSER - 1);
      return {
        authUrl: port.authorizationUrl({
          state,
          codeChallenge: sha256(verifier),
          redirectUri: redirectUri(provider),
        }),
        binding: browserBinding(provider, [bindingOf(state), ...kept]),
      };
    },

    /**
     * The provider's redirect back. Answers where to send the browser: the landing page with
     * `success=connected`, or with an error code and a fixed message. Never throws.
     * The user is the one the state was issued to; `userId` alone never connects anything, and
     * only the browser that asked for the state (`held`, its bindings) completes the connect.
     * `binding`, when given, is what that browser keeps from now on (its spent binding dropped).
     */
    async callback(
      providerText: string,
      query: OAuthCallbackQuery | null,
      held?: string,
    ): Promise<{ location: string; error?: CallbackError; binding?: BrowserBinding }> {
      const provider = (SYNC_PROVIDERS as readonly string[]).includes(providerText)
        ? (providerText as SyncProvider)
        : undefined;
      let binding: BrowserBinding | undefined;
      const fail = (error: CallbackError) => ({
        location: callbackError(error, provider),
        error,
        ...(binding ? { binding } : {}),
      });
      if (!provider || !query) return fail('invalid_callback');
      const port = providers[provider];
      if (!port) return fail('provider_not_configured');

      // The state is spent whatever happens next, so a consent link cannot be replayed.
      const spent = await spendState(provider, query.state, held);
      const stateRow = spent.stateRow;
      binding = spent.binding;
      if (query.error) return fail(query.error === 'access_denied' ? 'access_denied' : 'provider_error');
      if (!query.code) return fail('missing_code');
      if (!stateRow || (query.userId !== undefined && query.userId !== stateRow.userId))
        return fail('invalid_state');
      // Another browser (someone who was sent this consent link) connects nothing, not even its code.
      if (!binding) return fail('browser_mismatch');

      try {
        await connect(port, provider, stateRow, query.code);
        return { location: landing({ success: 'connected', provider }), binding };
      } catch (error) {
        log.warn({ err: error, provider }, 'calendar sync: connect failed');
        return fail('token_exchange_failed');
      }
    },
  };
}
