// The manage token of a booking made in this tab, kept across the trip to the payment page:
// the provider sends the customer back with the reservation's id only.
const key = (reservationId: number) => `manage-token:${reservationId}`;

export function rememberManageToken(reservationId: number, token: string) {
  try {
    sessionStorage.setItem(key(reservationId), token);
  } catch {
    // Storage refused (private mode): the page after payment asks the customer to use the link.
  }
}

export function recalledManageToken(reservationId: number): string | null {
  try {
    return sessionStorage.getItem(key(reservationId));
  } catch {
    return null;
  }
}

/** Field keys as words: `licencePlate` and `licence_plate` are "Licence plate". */
export function fieldLabel(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
