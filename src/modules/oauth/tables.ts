import type { Id, JsonText, Timestamp } from '../../db/column-types.js';

/**
 * OAuth refresh tokens (hashes only). Every rotation of one grant shares
 * `familyId`; a revoked token presented again revokes the (client, agent) pair.
 */
export interface OauthRefreshTokensTable {
  id: Id;
  clientId: string;
  agentId: number;
  tokenHash: string;
  familyId: string;
  expiresAt: Timestamp;
  revokedAt: Timestamp | null;
  createdAt: Timestamp;
  /** The permission group approved at consent, carried from one rotation to the next (migration 0008). */
  scope: string | null;
}

/**
 * A client registered through RFC 7591 dynamic registration. Public clients only:
 * no secret is issued or stored. Clients identified by a Client ID Metadata
 * Document (an `https://` client_id) are never stored here.
 */
export interface OauthClientsTable {
  /** Random, opaque (`oc_<base64url>`); the primary key. */
  clientId: string;
  clientName: string;
  clientDescription: string | null;
  logoUrl: string | null;
  homepageUrl: string | null;
  /** JSON array of 1..10 absolute URIs, matched exactly. */
  redirectUris: JsonText;
  createdAt: Timestamp;
  /**
   * The first approval a person gave this client (migration 0018); null until then.
   * A client still null 24 hours after registration is deleted.
   */
  firstAuthorizedAt: Timestamp | null;
}

/**
 * One authorization code (SHA-256 only), bound to everything the token request
 * must repeat. `consumedAt` is set by the one conditional UPDATE that redeems it;
 * `issuedFamilyId` names the refresh-token family issued from it, so a replay of
 * the code revokes exactly those tokens.
 */
export interface OauthAuthorizationCodesTable {
  id: Id;
  codeHash: string;
  clientId: string;
  userId: number;
  agentId: number;
  redirectUri: string;
  /** base64url(SHA-256(code_verifier)); S256 is the only method. */
  codeChallenge: string;
  /** The RFC 8707 resource named at authorization, or null when none was. */
  resource: string | null;
  /** The permission group approved at consent. */
  scope: string;
  expiresAt: Timestamp;
  consumedAt: Timestamp | null;
  issuedFamilyId: string | null;
  createdAt: Timestamp;
}

/** The tables this module owns (declared into Database by its module.ts). */
export interface OauthTables {
  oauthRefreshTokens: OauthRefreshTokensTable;
  oauthClients: OauthClientsTable;
  oauthAuthorizationCodes: OauthAuthorizationCodesTable;
}
