import { z } from 'zod';
import { entityId } from '../../http/schemas.js';
import { SYNC_PROVIDERS } from './providers/port.js';

export const syncProvider = z.enum(SYNC_PROVIDERS).describe('calendar_provider_a or calendar_provider_b');
export const providerParam = z.strictObject({ provider: syncProvider });

/** Most calendars one mapping call may name. */
export const MAX_MAPPED_CALENDARS = 50;

export const calendarSyncDto = z.strictObject({
  externalId: z
    .string()
    .trim()
    .min(1)
    .max(1024)
    .describe("The provider's calendar id (see status calendars)"),
  localName: z.string().trim().min(1).max(200).describe('Name of the local calendar it syncs into'),
  bidirectionalSync: z
    .boolean()
    .default(true)
    .describe('Default true: local creates, edits and deletes are pushed to the provider'),
  importReminders: z
    .boolean()
    .default(false)
    .describe(
      "Default false. true: each synced event's reminders come from the provider (minutes clamped to 0..1440); " +
        'false: local reminders survive re-sync untouched',
    ),
  triggerAutomationRules: z
    .boolean()
    .default(false)
    .describe('Default false. true: your event.synced rules run for each event a sync creates or changes'),
  selectedRuleIds: z
    .array(entityId)
    .max(50)
    .optional()
    .describe('Only these event.synced rules run; absent: all of your enabled event.synced rules'),
});
export type CalendarSyncInput = z.infer<typeof calendarSyncDto>;

export const syncCalendarsBody = z.strictObject({
  provider: syncProvider,
  calendars: z
    .array(calendarSyncDto)
    .min(1)
    .max(MAX_MAPPED_CALENDARS)
    .refine((list) => new Set(list.map((c) => c.externalId)).size === list.length, {
      message: 'each externalId may appear once',
    }),
});
export type SyncCalendarsInput = z.infer<typeof syncCalendarsBody>;

/**
 * OAuthCallbackQueryDto. Validation failures never answer 400 here: the route attaches them
 * and redirects to the landing page with `error=invalid_callback`.
 */
export const oauthCallbackQuery = z.object({
  code: z.string().max(2048).optional(),
  state: z.string().max(512).optional(),
  userId: z.coerce.number().int().min(1).optional(),
  session_state: z.string().max(256).optional(),
  iss: z.string().max(512).optional(),
  scope: z.string().max(2048).optional(),
  // Providers report a refused consent as `error` (+ `error_description`) instead of a code.
  error: z.string().max(256).optional(),
  error_description: z.string().max(2048).optional(),
});
export type OAuthCallbackQuery = z.infer<typeof oauthCallbackQuery>;

export const messageResponse = z.object({ message: z.string() });
export const authUrlResponse = z.object({ authUrl: z.string() });

export const externalCalendar = z.object({
  externalId: z.string(),
  name: z.string(),
  primary: z.boolean(),
});

export const syncedCalendar = z.object({
  externalId: z.string(),
  localCalendarId: z.number().int(),
  localName: z.string(),
  bidirectionalSync: z.boolean(),
  importReminders: z.boolean(),
  triggerAutomationRules: z.boolean(),
  selectedRuleIds: z.array(z.number().int()).nullable(),
  lastSyncedAt: z.string().nullable(),
});

export const connectionState = z
  .enum(['connected', 'needs_reconnect', 'not_connected'])
  .describe('needs_reconnect: the provider refused our refresh token; connect again');

export const providerStatus = z.object({
  provider: syncProvider,
  isConnected: z.boolean(),
  connectionState,
  calendars: z.array(externalCalendar).describe("The provider's calendars, as last read"),
  syncedCalendars: z.array(syncedCalendar),
  lastError: z.object({ code: z.string(), message: z.string(), at: z.string() }).nullable(),
});
export type ProviderStatus = z.infer<typeof providerStatus>;

export const statusResponse = z.object({ providers: z.array(providerStatus) });
export type SyncStatus = z.infer<typeof statusResponse>;

/** A Graph change notification batch (B's webhook). */
export const graphNotifications = z.object({
  value: z
    .array(
      z.looseObject({
        subscriptionId: z.string().max(256),
        clientState: z.string().max(256).optional(),
        changeType: z.string().max(64).optional(),
      }),
    )
    .max(1000),
});
export type GraphNotifications = z.infer<typeof graphNotifications>;
