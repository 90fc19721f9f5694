// The privacy seed's records about the person (privacy-seed.ts): consents, privacy requests and
// the platform's reports that name them.
import { client } from './http.js';
import { PRIVACY } from './privacy.js';
import type { Seeding } from './privacy-seed-people.js';

/** Privacy: consents, a policy acceptance, an earlier request. */
export async function seedPrivacy(s: Seeding) {
  const { person, P } = s;
  await P('PUT', `${PRIVACY}/consents/marketing_email`, {
    decision: 'accepted',
    policyVersion: 'v1',
    source: 'web',
    metadata: { by: person.name },
  });
  await P('PUT', `${PRIVACY}/consents/marketing_email`, { decision: 'revoked', policyVersion: 'v1' });
  await P('POST', `${PRIVACY}/policy-acceptance`, { version: '2025-01' });
  await P('POST', `${PRIVACY}/requests`, {
    requestType: 'export',
    reason: `Signed ${person.name}`,
    confirmEmail: person.email,
  });
}

/** Platform: reports that name the person's email (the honeypot from another address, or it blocks sign-in). */
export async function seedPlatformReports(s: Seeding) {
  const { app, person } = s;
  const anyone = client(app, null);
  await anyone.request('POST', '/api/monitoring/frontend-errors', {
    source: 'web',
    message: `Crash for ${person.email}`,
  });
  await anyone.request('POST', '/api/security/reports/csp', {
    'csp-report': { 'document-uri': `https://app.test/?u=${person.email}` },
  });
  // app.inject itself: the client has no say over the caller's address.
  await app.inject({
    method: 'GET',
    url: `/api/security/honeypot/admin-login?u=${encodeURIComponent(person.email)}`,
    headers: { 'user-agent': `probe ${person.email}` },
    remoteAddress: '203.0.113.9',
  });
}
