// Who may do what in the active organisation, by their role in it (the API decides; these only
// choose what the screens offer).

/** Whether a role may change the catalogue and override booking rules (staff). */
export const isStaff = (role: string | undefined) =>
  role === 'OWNER' || role === 'ADMIN' || role === 'MANAGER';

/** Whether a role may change the organisation's profile, schedule, colour and payment connection. */
export const isAdmin = (role: string | undefined) => role === 'OWNER' || role === 'ADMIN';
