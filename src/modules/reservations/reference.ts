import { randomBytes } from 'node:crypto';

/**
 * A reservation's public reference (DECISIONS.md "Pages people live in"): what its customer
 * quotes and its mails show instead of the id, which would tell how many bookings the
 * business has. Eight characters of an alphabet without 0/O and 1/I, so it reads back over
 * the phone; random, unique per organisation (a unique index; a booking draws again in the
 * rare case it meets one already given).
 */
export const REFERENCE_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
export const REFERENCE_LENGTH = 8;

/** A new reference: 8 characters, 40 random bits (32 letters, so each byte's low 5 bits pick one evenly). */
export function newReference(): string {
  let reference = '';
  for (const byte of randomBytes(REFERENCE_LENGTH)) reference += REFERENCE_ALPHABET[byte & 31];
  return reference;
}
