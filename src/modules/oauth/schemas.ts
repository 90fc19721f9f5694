import { z } from 'zod';
import {
  CLIENT_DESCRIPTION_MAX,
  CLIENT_ID_MAX,
  CLIENT_NAME_MAX,
  CODE_CHALLENGE_METHOD,
  displayUrlProblem,
  GRANT_TYPES,
  isS256Challenge,
  REDIRECT_URIS_MAX,
  RESPONSE_TYPE,
  redirectUriProblem,
  STATE_MAX,
  URI_MAX,
} from './rules.js';

// ---------------------------------------------------------------- discovery

export const protectedResourceMetadata = z
  .object({
    resource: z.string(),
    authorization_servers: z.array(z.string()),
    bearer_methods_supported: z.array(z.string()),
    resource_documentation: z.string(),
  })
  .describe('OAuth 2.0 Protected Resource Metadata (RFC 9728)');
export type ProtectedResourceMetadata = z.infer<typeof protectedResourceMetadata>;

export const authorizationServerMetadata = z
  .object({
    issuer: z.string(),
    authorization_endpoint: z.string(),
    token_endpoint: z.string(),
    registration_endpoint: z.string(),
    response_types_supported: z.array(z.string()),
    grant_types_supported: z.array(z.string()),
    code_challenge_methods_supported: z.array(z.string()),
    token_endpoint_auth_methods_supported: z.array(z.string()),
    scopes_supported: z.array(z.string()),
    authorization_response_iss_parameter_supported: z.boolean(),
    client_id_metadata_document_supported: z.boolean(),
  })
  .describe('OAuth 2.0 Authorization Server Metadata (RFC 8414)');
export type AuthorizationServerMetadata = z.infer<typeof authorizationServerMetadata>;

// ---------------------------------------------------------------- registration

const redirectUri = z.string().superRefine((value, ctx) => {
  const problem = redirectUriProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
const displayUrl = z.string().superRefine((value, ctx) => {
  const problem = displayUrlProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/**
 * RegisterClientDto. Unknown client metadata is accepted and ignored (RFC 7591 §2),
 * the one body of this service that does not refuse unknown fields. RFC 7591's own
 * `logo_uri` and `client_uri` are read as the logo and homepage when SPEC.md's names
 * are absent.
 */
export const registerClientBody = z
  .looseObject({
    client_name: z.string().trim().min(1).max(CLIENT_NAME_MAX),
    client_description: z.string().trim().max(CLIENT_DESCRIPTION_MAX).optional(),
    client_logo_url: displayUrl.optional().describe('Absolute URL of the logo'),
    client_homepage_url: displayUrl.optional().describe('Absolute URL of the homepage'),
    logo_uri: displayUrl.optional().describe('RFC 7591 name of client_logo_url'),
    client_uri: displayUrl.optional().describe('RFC 7591 name of client_homepage_url'),
    redirect_uris: z
      .array(redirectUri)
      .min(1)
      .max(REDIRECT_URIS_MAX)
      .refine((uris) => new Set(uris).size === uris.length, 'must not list a URI more than once')
      .describe('https://, or http://localhost / http://127.0.0.1 on any port; matched exactly'),
    token_endpoint_auth_method: z
      .literal('none', { error: 'must be none: only public clients are supported (no client secret)' })
      .optional(),
    grant_types: z
      .array(z.enum(GRANT_TYPES, { error: `may only contain ${GRANT_TYPES.join(', ')}` }))
      .refine(
        (grants) => grants.includes('authorization_code'),
        'must include authorization_code, the grant of response type code (RFC 7591 §2.1)',
      )
      .optional(),
    response_types: z
      .array(z.literal(RESPONSE_TYPE, { error: 'may only contain code' }))
      .min(1)
      .optional(),
  })
  .describe('RegisterClientDto; other RFC 7591 client metadata is accepted and ignored');
export type RegisterClientInput = z.infer<typeof registerClientBody>;

export const registeredClient = z.object({
  client_id: z.string(),
  client_id_issued_at: z.number().int().describe('Seconds since the epoch'),
  client_name: z.string(),
  client_description: z.string().describe('"" when none was given'),
  client_logo_url: z.string().optional(),
  client_homepage_url: z.string().optional(),
  redirect_uris: z.array(z.string()),
  token_endpoint_auth_method: z.literal('none'),
  grant_types: z.array(z.string()),
  response_types: z.array(z.string()),
});
export type RegisteredClient = z.infer<typeof registeredClient>;

// ---------------------------------------------------------------- authorization endpoint

/** Documentation only: the service checks the authorize query itself, naming the parameter at fault. */
export const authorizeQuery = z.looseObject({
  response_type: z.string().describe('code'),
  client_id: z.string(),
  redirect_uri: z.string().describe('One of the registered redirect URIs, exactly'),
  code_challenge: z.string().describe('base64url(SHA-256(code_verifier))'),
  code_challenge_method: z.string().describe('S256 (plain is refused)'),
  state: z.string().optional().describe('Opaque; echoed back'),
  scope: z.string().optional().describe('Advisory; the permission group chosen at consent is the scope'),
  resource: z.string().optional().describe('RFC 8707; must be <PUBLIC_URL>/api/mcp'),
});

// ---------------------------------------------------------------- consent API

const clientIdField = z.string().min(1).max(CLIENT_ID_MAX);
const redirectUriField = z.string().min(1).max(URI_MAX);
const codeChallenge = z
  .string()
  .refine(isS256Challenge, 'must be the 43-character base64url SHA-256 of the code_verifier (RFC 7636 §4.2)');

export const consentDetailsQuery = z.object({
  client_id: clientIdField,
  redirect_uri: redirectUriField,
  code_challenge: codeChallenge,
  code_challenge_method: z.literal(CODE_CHALLENGE_METHOD, {
    error: 'must be S256: plain is not supported (RFC 7636 §4.3)',
  }),
  response_type: z.literal(RESPONSE_TYPE, { error: 'must be code' }),
  resource: z.string().max(URI_MAX).optional(),
});
export type ConsentDetailsQuery = z.infer<typeof consentDetailsQuery>;

export const consentPermissionGroup = z.object({
  id: z.string(),
  label: z.string(),
  description: z.string(),
  actionKeys: z.array(z.string()),
  canAssign: z.boolean(),
  requiresGlobalAdmin: z.boolean(),
  highlights: z.array(z.string()),
});

export const consentDetails = z.object({
  clientId: z.string(),
  clientName: z.string(),
  clientDescription: z.string().describe('"" when the client gave none'),
  clientLogoUrl: z.string().nullable(),
  clientHomepageUrl: z.string().nullable(),
  redirectUri: z.string(),
  availablePermissionGroups: z
    .array(consentPermissionGroup)
    .describe('Only the groups you may assign (canAssign true)'),
});
export type ConsentDetails = z.infer<typeof consentDetails>;

export const consentBody = z.strictObject({
  clientId: clientIdField,
  redirectUri: redirectUriField,
  state: z.string().max(STATE_MAX).nullable().optional().describe('The authorize request state; "" for none'),
  codeChallenge,
  approve: z.boolean(),
  permissionGroupId: z
    .string()
    .max(100)
    .nullable()
    .optional()
    .describe('Required to approve; not one you may assign: error=access_denied'),
  resource: z.string().max(URI_MAX).optional().describe('The authorize request resource (RFC 8707), if any'),
});
export type ConsentInput = z.infer<typeof consentBody>;

export const consentResult = z.object({
  redirectUrl: z.string().describe('Where the browser goes next: the client redirect URI with the answer'),
});

// ---------------------------------------------------------------- token endpoint

/**
 * Documentation only: the token route parses its body itself, so every failure is an
 * RFC 6749 §5.2 body. Loose, so a passing validation never strips what the handler checks.
 */
export const tokenRequestBody = z.looseObject({
  grant_type: z.enum(GRANT_TYPES),
  client_id: z.string(),
  code: z.string().optional().describe('authorization_code'),
  redirect_uri: z.string().optional().describe('authorization_code'),
  code_verifier: z.string().optional().describe('authorization_code'),
  refresh_token: z.string().optional().describe('refresh_token'),
  resource: z.string().optional().describe('RFC 8707; must be <PUBLIC_URL>/api/mcp'),
  scope: z.string().optional().describe('refresh_token; if given, the scope already granted'),
});

export const tokenResponse = z.object({
  access_token: z.string().describe('A signed JWT for /api/mcp'),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  refresh_token: z.string(),
  scope: z.string().describe('The permission group chosen at consent'),
});
export type TokenResponse = z.infer<typeof tokenResponse>;

export const oauthErrorBody = z
  .object({ error: z.string(), error_description: z.string() })
  .describe('RFC 6749 §5.2 error');
