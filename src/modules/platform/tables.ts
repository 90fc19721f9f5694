import type { Id, JsonText, Timestamp } from '../../db/column-types.js';

export interface FrontendErrorsTable {
  id: Id;
  source: string;
  message: string;
  stack: string | null;
  url: string | null;
  severity: 'error' | 'warn' | 'info';
  details: JsonText | null;
  ip: string | null;
  userAgent: string | null;
  createdAt: Timestamp;
}

export interface SecurityReportsTable {
  id: Id;
  kind: 'ct' | 'csp';
  body: JsonText;
  ip: string | null;
  userAgent: string | null;
  createdAt: Timestamp;
}

export interface HoneypotHitsTable {
  id: Id;
  ip: string;
  userAgent: string | null;
  path: string;
  createdAt: Timestamp;
}

/** The tables this module owns (declared into Database by its module.ts). */
export interface PlatformTables {
  frontendErrors: FrontendErrorsTable;
  securityReports: SecurityReportsTable;
  honeypotHits: HoneypotHitsTable;
}
