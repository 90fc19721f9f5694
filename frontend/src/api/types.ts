// The API's records as the pages and the console read them: every one derived from the generated
// schema.d.ts (`npm run api-types`), never hand-copied, and each named once here.
import type { paths } from './schema.js';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** The JSON answer of `method` on `path` with status `code`. */
type Ok<P extends keyof paths, M extends Method = 'get', C extends number = 200> = paths[P] extends {
  [K in M]: { responses: { [S in C]: infer R } };
}
  ? Json<R>
  : never;
/** The JSON body `method` on `path` takes. */
type Body<P extends keyof paths, M extends Method> = paths[P] extends {
  [K in M]: { requestBody?: infer B };
}
  ? Json<NonNullable<B>>
  : never;

// The booking and manage pages (public).
export type Catalogue = Ok<'/api/public/organisations/{slug}'>;
export type PublicOrganisation = Catalogue['organisation'];
export type PublicType = Catalogue['resourceTypes'][number];
export type PublicResource = Catalogue['resources'][number];
export type Availability = Ok<'/api/public/organisations/{slug}/availability'>;
export type ManagedReservation = Ok<'/api/public/reservations/{token}'>;
export type BookedReservation = Ok<'/api/public/organisations/{slug}/holds', 'post', 201>;
export type ReservationBody = Body<'/api/public/organisations/{slug}/holds', 'post'>;
export type ErrorEnvelope = Ok<'/api/public/reservations/{token}/cancel', 'post', 409>;
export type Alternative = NonNullable<ErrorEnvelope['error']['alternatives']>[number];
export type ErrorDetail = NonNullable<ErrorEnvelope['error']['details']>[number];
/** An occurrence of a refused series that does not fit, with the times free instead. */
export type Conflict = NonNullable<ErrorEnvelope['error']['conflicts']>[number];

// The signed-in person: the session and the account's security.
export type SessionAnswer = Ok<'/api/auth/login/2fa', 'post'>;
export type SignedInUser = SessionAnswer['user'];
export type Me = Ok<'/api/auth/me'>;
export type SignedInSession = Ok<'/api/auth/sessions'>[number];
export type Passkey = Ok<'/api/auth/passkeys'>[number];
export type ReceivedInvitation = Ok<'/api/organisations/invitations'>[number];
export type TwoFactorSetup = Ok<'/api/auth/2fa/setup', 'post'>;

// Organisations and their catalogue.
export type Organisation = Ok<'/api/organisations'>[number];
export type OrganisationDetail = Ok<'/api/organisations/{id}'>;
export type SchedulePolicy = NonNullable<OrganisationDetail['schedulePolicy']>;
export type ResolvedSchedule = Ok<'/api/resources/{id}/schedule'>;
export type MemberOrInvitation = Ok<'/api/organisations/{id}/users/list'>[number];
export type ResourceType = Ok<'/api/resource-types'>[number];
export type ResourceTypeBody = Body<'/api/resource-types', 'post'>;
export type Resource = Ok<'/api/resources'>[number];
export type ResourceBody = Body<'/api/resources', 'post'>;
/** Why a time can or cannot be booked, resource by resource (the explain routes). */
export type Explanation = Ok<'/api/resources/{id}/availability/explain'>;
export type ExplainedResource = Explanation['resources'][number];
export type ReasonCode = ExplainedResource['reasons'][number]['code'];
export type Reservation = Ok<'/api/reservations/{id}'>;
export type ReservationStatus = Reservation['status'];

// Payments, calendar sync, privacy.
export type PaymentStatus = Ok<'/api/organisations/{id}/payment/status'>;
export type SyncStatus = Ok<'/api/calendar-sync/status'>;
export type SyncProvider = SyncStatus['providers'][number];
export type ProviderName = SyncProvider['provider'];
export type AccessReport = Ok<'/api/compliance/me/privacy/access'>;
export type PrivacyRequest = Ok<'/api/compliance/me/privacy/requests'>['items'][number];
export type Consent = Ok<'/api/compliance/me/privacy/consents'>[number];
export type ConsentType = Consent['consentType'];

// Webhooks.
export type Webhook = Ok<'/api/organisations/{id}/webhooks'>['items'][number];
export type WebhookEvent = Webhook['events'][number];
export type Delivery = Ok<'/api/organisations/{id}/webhooks/{webhookId}/deliveries'>['items'][number];

// Agents and their approvals.
export type Agent = Ok<'/api/agents/{id}'>;
export type AgentStatus = Agent['status'];
export type Permission = Agent['permissions'][number];
export type Catalog = Ok<'/api/agents/catalog'>;
export type CatalogAction = Catalog['actions'][number];
export type PermissionGroup = Ok<'/api/agents/permission-groups'>[number];
export type PresetId = NonNullable<Body<'/api/agents', 'post'>['permissionGroupId']>;
export type PermissionsBody = Body<'/api/agents/{id}/permissions', 'put'>;
export type AgentKey = Ok<'/api/agents/{id}/keys'>[number];
export type CreatedKey = Ok<'/api/agents/{id}/keys', 'post', 201>;
export type Policy = Ok<'/api/agents/{id}/policy'>;
export type PolicyBody = Body<'/api/agents/{id}/policy', 'put'>;
export type ApprovalMode = Policy['requireApproval'];
export type ActivityItem = Ok<'/api/agents/{id}/activity'>['items'][number];
export type Approval = Ok<'/api/approvals/{id}'>;
export type ApprovalStatus = Approval['status'];
