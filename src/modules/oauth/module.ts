import { sweep } from '../../jobs/declarations.js';
import { defineModule } from '../../module.js';
import { oauthPrivacy } from './privacy.js';
import { oauthRoutes } from './routes.js';
import {
  createOAuthService,
  HOUSEKEEPING_EVERY_MINUTES,
  OAUTH_HOUSEKEEPING_JOB,
  type OAuthService,
} from './service.js';
import type { OauthTables } from './tables.js';

declare module '../../module.js' {
  interface Services {
    oauth: OAuthService;
  }
}

declare module '../../db/types.js' {
  interface Database extends OauthTables {}
}

export const oauthModule = defineModule({
  name: 'oauth',
  tables: ['oauthRefreshTokens', 'oauthClients', 'oauthAuthorizationCodes'],
  // It creates the agent a person approves, and verifies the access tokens of /api/mcp (app.ts).
  service: (deps, { agents }) => createOAuthService({ ...deps, agents }),
  // Discovery at /.well-known/*, the OAuth 2.1 server at /api/oauth/*.
  routes: [{ plugin: oauthRoutes }],
  privacy: oauthPrivacy,
  jobs: ({ housekeeping }) => [sweep(OAUTH_HOUSEKEEPING_JOB, HOUSEKEEPING_EVERY_MINUTES, housekeeping)],
});
